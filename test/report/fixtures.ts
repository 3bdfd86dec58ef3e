import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bufferIO } from '../../src/cli/io.js';
import { runCli } from '../../src/cli/main.js';
import { runServe } from '../../src/cli/serve-session.js';
import { ServeSettingsSchema } from '../../src/cli/serve-settings.js';
import { stagePolicy } from '../../src/dataplane/index.js';

/** Runs the report tests draw: small, deterministic, each a few seconds. */
export async function cli(args: string[]) {
  const io = bufferIO();
  const code = await runCli(args, io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

/** A small evolve run whose best is an evolved candidate (so its lineage has edges). */
export async function evolveRun(db: string): Promise<void> {
  const r = await cli(['evolve', '--iterations', '6', '--islands', '2', '--window-min', '2', '--warmup-min', '1', '--agents', '96', '--threads', '2', '--db', db, '--json']);
  if (r.code !== 0) throw new Error(`evolve failed: ${r.stderr}`);
}

const seed = (name: string) => readFileSync(join(process.cwd(), 'seeds', name), 'utf8');

/** Asks to reschedule at every step; its schedule answers once, then throws: rolled back after 3 attempts. */
const BREAKS = 'let plans = 0;\nfunction shouldReschedule(ctx) { return true; }\nfunction schedule(ctx) { if (plans++ > 0) throw new Error("broken"); return { roles: ctx.plan.roles }; }\n';

/**
 * A 6-minute serve run with no cycle (snapshots longer than the run) and two
 * policies staged by hand at fixed simulated times: a deployment, then one
 * that is rolled back. `frozen`: the same serving with the starting policy only.
 */
export async function serveRun(db: string, staging: string, frozen: boolean): Promise<void> {
  const stageAt: [number, () => void][] = frozen
    ? []
    : [
        [60, () => stagePolicy(staging, { name: 'greedy.js', code: seed('greedy.js'), candidateId: null })],
        [180, () => stagePolicy(staging, { name: 'breaks.js', code: BREAKS, candidateId: null })],
      ];
  await runServe({
    dbPath: db,
    resume: false,
    settings: ServeSettingsSchema.parse({
      workload: 'cc', agents: 20, speed: 0, durationMinutes: 6, segmentMinutes: 3, frozen,
      policyName: 'static-4p5d.js', policyCode: seed('static-4p5d.js'), cpuLimitMs: 1000,
    }),
    controlPlane: { windowMinutes: 30, warmupMinutes: 1, threads: 1 },
    stagingDir: staging,
    onStatus: (s) => {
      while (stageAt.length > 0 && s.simSeconds >= stageAt[0]![0]) stageAt.shift()![1]();
    },
  });
  if (stageAt.length > 0) throw new Error('the serve run ended before every policy was staged');
}

/** `suite --json` on two tiny scenario files (3 scored minutes each) and three seeds. */
export async function suiteFile(dir: string): Promise<string> {
  const base = JSON.parse(readFileSync(join(process.cwd(), 'evaluator', 'scenarios', 'steady-cc.json'), 'utf8'));
  const files = [40, 80].map((agents) => {
    const file = join(dir, `tiny-cc-${agents}.json`);
    writeFileSync(file, JSON.stringify({ ...base, name: `tiny-cc-${agents}`, workload: { ...base.workload, agents }, warmupMinutes: 1, minutes: 3 }));
    return file;
  });
  const r = await cli(['suite', '--scenarios', files.join(','), '--policies', ...['static-4p5d.js', 'greedy.js', 'evolving-infra.js'].map((f) => join('seeds', f)), '--threads', '1', '--no-cache', '--json']);
  if (r.code !== 0) throw new Error(`suite failed: ${r.stderr}`);
  const out = join(dir, 'suite.json');
  writeFileSync(out, r.stdout);
  return out;
}
