import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildSnapshot } from '../../src/evaluate/index.js';
import { loadScenario } from '../../src/scenario/index.js';
import { MECHANICS_PRESETS, parseSplit } from '../../src/sim/index.js';
import { codeVersion, computeOracles, simulatorCodeInputs, OracleCache, runSuite, SuitePool, type OracleInput } from '../../src/suite/index.js';

const snapshot = buildSnapshot({
  workload: 'cc',
  agents: 12,
  roles: parseSplit('1P2D', 3),
  nodeKinds: ['gb300', 'gb300', 'gb300'],
  mechanics: MECHANICS_PRESETS['evolving-infra'],
  warmupMinutes: 1,
  minutes: 3,
  seed: 2,
});
const input = (contentHash: string, seed = 2): OracleInput => ({
  name: 'tiny',
  seed,
  contentHash,
  source: { kind: 'inline', key: contentHash, snapshot: { ...snapshot, seed } },
  nodeKinds: snapshot.nodeKinds,
  warmupSeconds: snapshot.warmupSeconds,
});

describe('oracle cache', () => {
  it('reads a result back for the same content, seed and code version, and recomputes when one changes', async () => {
    const cache = new OracleCache(mkdtempSync(join(tmpdir(), 'oracles-')));
    const pool = new SuitePool(1);
    const computed: string[] = [];
    const get = (i: OracleInput, code: string) => computeOracles(i, { pool, cache, codeVersion: code, onCompute: (key) => computed.push(key) });

    const first = await get(input('content-a'), 'code-1');
    expect(first.fromCache).toBe(false);
    expect(computed).toHaveLength(1);
    const again = await get(input('content-a'), 'code-1');
    expect(again.fromCache).toBe(true);
    expect(again.result).toEqual(first.result);
    expect(computed).toHaveLength(1);

    expect((await get(input('content-b'), 'code-1')).fromCache).toBe(false);
    expect(computed).toHaveLength(2);
    expect((await get(input('content-a'), 'code-2')).fromCache).toBe(false);
    expect(computed).toHaveLength(3);
    expect((await get(input('content-a', 3), 'code-1')).fromCache).toBe(false);
    expect(computed).toHaveLength(4);
    expect(new Set(computed).size).toBe(4);
    // Written atomically: only finished result files in the folder, no temp files left.
    expect(readdirSync(cache.dir).sort()).toEqual(computed.map((k) => `${k}.json`).sort());
  });

  it('recomputes over a damaged cache file instead of trusting it', async () => {
    const cache = new OracleCache(mkdtempSync(join(tmpdir(), 'oracles-')));
    const pool = new SuitePool(1);
    let computed = 0;
    const first = await computeOracles(input('c'), { pool, cache, codeVersion: 'v', onCompute: () => computed++ });
    const file = cache.path(first.result.key);
    writeFileSync(file, readFileSync(file, 'utf8').slice(0, 100));
    const second = await computeOracles(input('c'), { pool, cache, codeVersion: 'v', onCompute: () => computed++ });
    expect(computed).toBe(2);
    expect(second.result).toEqual(first.result);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(first.result);
  });

  it('is missed when the scenario file changes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scenario-'));
    const file = join(dir, 'tiny.json');
    const write = (minutes: number) =>
      writeFileSync(file, JSON.stringify({ name: 'tiny', note: 'a shortened cc run for the cache test', workload: { preset: 'cc', agents: 10 }, cluster: { nodes: 3 }, split: '1P2D', warmupMinutes: 1, minutes }));
    const cache = new OracleCache(join(dir, 'oracles'));
    const pool = new SuitePool(1);
    const run = async () => (await runSuite({ scenarios: [loadScenario(file)], policies: [], schedCost: { kind: 'zero' }, pool, cache, codeVersion: 'v' })).oraclesFromCache;
    write(2);
    expect(await run()).toBe(0);
    expect(await run()).toBe(1);
    write(3);
    expect(await run()).toBe(0);
    expect(await run()).toBe(1);
  });
});

describe('code version', () => {
  it('is a hash of file contents: equal for equal files, different when one changes', () => {
    const root = mkdtempSync(join(tmpdir(), 'code-'));
    mkdirSync(join(root, 'sim'));
    writeFileSync(join(root, 'sim', 'a.ts'), 'export const a = 1;\n');
    writeFileSync(join(root, 'profile.json'), '{"c0": 1}\n');
    writeFileSync(join(root, 'sim', 'notes.md'), 'not code\n');
    const paths = [join(root, 'sim'), join(root, 'profile.json')];
    const v1 = codeVersion(paths);
    expect(codeVersion(paths)).toBe(v1);
    writeFileSync(join(root, 'sim', 'notes.md'), 'still not code\n');
    expect(codeVersion(paths)).toBe(v1);
    writeFileSync(join(root, 'sim', 'a.ts'), 'export const a = 2;\n');
    const v2 = codeVersion(paths);
    expect(v2).not.toBe(v1);
    writeFileSync(join(root, 'profile.json'), '{"c0": 2}\n');
    expect(codeVersion(paths)).not.toBe(v2);
  });

  it('covers the simulator, workload and evaluator code and the calibrated JSON', () => {
    const inputs = simulatorCodeInputs();
    for (const part of [join('src', 'sim'), join('src', 'workload'), join('src', 'evaluate'), join('evaluator', 'profiles'), join('evaluator', 'workloads')]) {
      const found = inputs.find((p) => p.endsWith(part));
      expect(found, part).toBeDefined();
      expect(existsSync(found!)).toBe(true);
    }
    expect(codeVersion()).toMatch(/^[0-9a-f]{16}$/);
  });
});
