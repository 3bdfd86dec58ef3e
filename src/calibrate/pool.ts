import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { InfrastructureError } from '../common/errors.js';
import { packageRoot } from '../common/package-root.js';
import type { RunSpec } from './plan.js';
import { runOne, type RunOutcome } from './run-one.js';

export interface RunAllOptions {
  /** Worker threads; 0 or 1 runs in this thread, one run after the other. Default: the machine's cores. */
  threads?: number;
  /** Called as each run finishes (in completion order). */
  onDone?: (spec: RunSpec, outcome: RunOutcome, done: number, total: number) => void;
}

/** Runs every spec, in parallel on worker threads when there is more than one; outcomes by key. */
export async function runAll(specs: readonly RunSpec[], options: RunAllOptions = {}): Promise<Map<string, RunOutcome>> {
  const threads = Math.max(0, Math.min(options.threads ?? availableParallelism(), specs.length));
  const out = new Map<string, RunOutcome>();
  let done = 0;
  const finished = (spec: RunSpec, outcome: RunOutcome): void => {
    out.set(spec.key, outcome);
    options.onDone?.(spec, outcome, ++done, specs.length);
  };
  if (threads <= 1) {
    for (const spec of specs) {
      // Yield between runs so that progress output is flushed.
      await new Promise((resolve) => setImmediate(resolve));
      finished(spec, runOne(spec));
    }
    return out;
  }
  const pool = new Piscina<RunSpec, RunOutcome>({
    filename: workerFile(),
    minThreads: threads,
    maxThreads: threads,
    // A simulation allocates many short-lived objects; a larger young generation keeps scavenges rare.
    resourceLimits: { maxYoungGenerationSizeMb: 64 },
  });
  try {
    await Promise.all(specs.map(async (spec) => finished(spec, await pool.run(spec))));
  } catch (error) {
    // Inputs are checked before the pool starts (checkRun), so a failing run is a bug or a broken worker.
    throw new InfrastructureError(`calibration worker failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  } finally {
    await pool.destroy();
  }
  return out;
}

/** The compiled worker; under vitest the sources are TypeScript, so it runs from dist/ (npm test builds first). */
function workerFile(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const compiled = join(here, 'worker.js');
  if (existsSync(compiled)) return compiled;
  return join(packageRoot(), 'dist', 'src', 'calibrate', 'worker.js');
}
