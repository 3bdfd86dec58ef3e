import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { buildSnapshotFromStrings, type Snapshot } from '../../src/evaluate/index.js';
import type { ControlPlaneConfigInput, StagedPolicy } from '../../src/controlplane/index.js';

/** The evaluator pool runs compiled workers from dist/ (npm test builds first). */
export function ensureBuilt(): void {
  if (!existsSync(resolve('dist/src/evolve/pool/worker.js')) || !existsSync(resolve('dist/src/controlplane/index.js'))) {
    execFileSync('npx', ['tsc', '-p', '.'], { stdio: 'ignore' });
  }
}

export function tmpDir(prefix = 'ap-cp-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** A small window: 32 coding agents, 30 s warm-up + 60 s scored, 4P5D; a replay takes tens of ms. */
export function smallSnapshot(seed = 1, overrides: Partial<Snapshot> = {}): Snapshot {
  return {
    ...buildSnapshotFromStrings({ workload: 'cc', agents: 32, nodes: 9, split: '4P5D', nodeKinds: 'gb300', mechanics: 'evolving-infra', warmupMinutes: 0.5, minutes: 1, seed }),
    ...overrides,
  };
}

/** Three seeds with different trade-offs (a smaller first population keeps cycles short). */
export function seedsDir(): string {
  const dir = tmpDir('ap-cp-seeds-');
  for (const f of ['evolving-infra.js', 'static-4p5d.js', 'greedy.js']) writeFileSync(join(dir, f), readFileSync(resolve('seeds', f)));
  return dir;
}

/** A static split with one prefill node: clearly worse than 4P5D on the coding-agent window (about 65 s vs 56 s). */
export function badPolicy(): { name: string; code: string } {
  return { name: 'static-1p8d', code: readFileSync(resolve('seeds/static-4p5d.js'), 'utf8').replace('const PREFILL_NODES = 4;', 'const PREFILL_NODES = 1;') };
}

export function smallConfig(overrides: ControlPlaneConfigInput = {}): ControlPlaneConfigInput {
  return {
    iterationsPerCycle: 2,
    islands: 2,
    threads: 2,
    batch: 2,
    mutator: 'structural',
    cpuLimitMs: 1000,
    schedCost: 'fixed:1',
    warmStartCount: 4,
    cycleMaxMinutes: 2,
    backoffSeconds: 0.05,
    maxBackoffSeconds: 0.2,
    seedsDir: seedsDir(),
    stagingDir: join(tmpDir('ap-cp-staging-'), 'staging'),
    ...overrides,
  };
}

/** A stager like the data plane's: temporary file, then rename; remembers what it staged. */
export function fakeStager(): { stage: (dir: string, p: StagedPolicy) => string; staged: { dir: string; policy: StagedPolicy }[] } {
  const staged: { dir: string; policy: StagedPolicy }[] = [];
  return {
    staged,
    stage(dir, policy) {
      mkdirSync(dir, { recursive: true });
      const file = join(dir, 'staged.js');
      writeFileSync(`${file}.tmp`, `// candidate ${policy.candidateId}\n${policy.code}`);
      renameSync(`${file}.tmp`, file);
      staged.push({ dir, policy });
      return file;
    },
  };
}

/** A TCP port on which nothing listens (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

export function query<T = Record<string, unknown>>(db: string, sql: string, ...params: unknown[]): T[] {
  const d = new Database(db, { readonly: true });
  try {
    return d.prepare(sql).all(...params) as T[];
  } finally {
    d.close();
  }
}

export function integrity(db: string): string {
  const d = new Database(db, { readonly: true });
  try {
    return (d.prepare('PRAGMA integrity_check').get() as { integrity_check: string }).integrity_check;
  } finally {
    d.close();
  }
}

/**
 * The caller's paced loop stand-in: a timer on the main thread every `everyMs`.
 * `ticks` is how many ran so far: a caller whose loop is never blocked sees it
 * grow between any two events of the control plane.
 */
export function ticker(everyMs = 10): { readonly ticks: number; stop: () => number } {
  let ticks = 0;
  const timer = setInterval(() => ticks++, everyMs);
  return {
    get ticks() {
      return ticks;
    },
    stop: () => {
      clearInterval(timer);
      return ticks;
    },
  };
}

export { waitFor } from '../wait-for.js';
