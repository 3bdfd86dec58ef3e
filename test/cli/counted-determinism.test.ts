import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { bufferIO } from '../../src/cli/io.js';
import { candidateRows } from '../evolve/engine/small-run.js';

/**
 * The default scheduling cost (`counted`) does not depend on how busy the
 * machine is: a CPU-bound process runs beside every run here, and runs with
 * the same seed must still agree byte for byte. (Under `measured` they do not:
 * the charge is the CPU time the policy took, waiting for a core included.)
 */
let hog: ChildProcess | undefined;

beforeAll(async () => {
  hog = spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' });
  await new Promise<void>((resolve, reject) => {
    hog!.once('spawn', () => resolve());
    hog!.once('error', reject);
  });
});

afterAll(() => {
  if (hog && hog.exitCode === null) hog.kill('SIGKILL');
});

async function cli(args: string[]) {
  const io = bufferIO();
  const code = await runCli(args, io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

function candidates(db: string) {
  return candidateRows(db, 'id, code_hash, fitness, breakdown, features, cell, status, failure_kind');
}

describe('determinism under the default sched-cost while another process loads the CPU', () => {
  it('replay --json is byte-identical', async () => {
    const args = ['replay', '--policy', 'seeds/evolving-infra.js', '--workload', 'cc', '--agents', '30', '--warmup-min', '1', '--minutes', '3', '--json'];
    const a = await cli(args);
    const b = await cli(args);
    expect(a.code, a.stderr).toBe(0);
    expect(hog!.exitCode).toBe(null);
    expect(JSON.parse(a.stdout).breakdown.schedSeconds).toBeGreaterThan(0);
    expect(b.stdout).toBe(a.stdout);
  }, 120_000);

  it('suite --json is byte-identical, oracles computed afresh each time', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ap-counted-suite-'));
    const file = join(dir, 'tiny-cc.json');
    const scenario = { name: 'tiny-cc', note: 'a shortened cc run for the determinism test', workload: { preset: 'cc', agents: 24 }, cluster: { nodes: 3 }, split: '1P2D', warmupMinutes: 1, minutes: 10, seed: 1 };
    writeFileSync(file, JSON.stringify(scenario));
    const args = ['suite', '--scenarios', file, '--policies', 'seeds/evolving-infra.js', 'seeds/arrow-like.js', '--no-cache', '--threads', '2', '--json'];
    const a = await cli(args);
    const b = await cli(args);
    expect(a.code, a.stderr).toBe(0);
    expect(hog!.exitCode).toBe(null);
    expect(JSON.parse(a.stdout).scenarios[0].policies).toHaveLength(2);
    expect(b.stdout).toBe(a.stdout);
  }, 300_000);

  it('two evolve runs with the same seed write the same lineage', async () => {
    const dbs = [0, 1].map(() => join(mkdtempSync(join(tmpdir(), 'ap-counted-')), 'lineage.db'));
    const outs: string[] = [];
    for (const db of dbs) {
      const r = await cli(['evolve', '--db', db, '--agents', '16', '--iterations', '3', '--islands', '2', '--window-min', '2', '--warmup-min', '1', '--seed', '7', '--json']);
      expect(r.code, r.stderr).toBe(0);
      // The summary names its database; everything else must agree.
      outs.push(r.stdout.split(JSON.stringify(db)).join('DB'));
    }
    expect(hog!.exitCode).toBe(null);
    const [a, b] = dbs.map(candidates);
    expect(a!.length).toBeGreaterThan(6);
    expect(a!.filter((c) => (c as { status: string }).status === 'evaluated').length).toBeGreaterThan(3);
    expect(b).toEqual(a);
    expect(outs[1]).toBe(outs[0]);
  }, 600_000);
});
