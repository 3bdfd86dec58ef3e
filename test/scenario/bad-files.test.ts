import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bufferIO } from '../../src/cli/io.js';
import { runCli } from '../../src/cli/main.js';
import { InputError } from '../../src/common/errors.js';
import { loadScenario } from '../../src/scenario/index.js';

const dir = mkdtempSync(join(tmpdir(), 'scenario-bad-'));
const good = JSON.parse(readFileSync(join('evaluator', 'scenarios', 'steady-cc.json'), 'utf8')) as Record<string, unknown>;

function file(name: string, content: string): string {
  const path = join(dir, `${name}.json`);
  writeFileSync(path, content);
  return path;
}
const variant = (name: string, change: (s: Record<string, unknown>) => void): string => {
  const copy = structuredClone(good);
  change(copy);
  return file(name, JSON.stringify(copy));
};

/** Each bad file and the field its one-line error must name. */
const CASES: { name: string; path: () => string; field: RegExp }[] = [
  { name: 'bad JSON', path: () => file('bad-json', '{"name": "x",'), field: /not valid JSON/ },
  { name: 'unknown field', path: () => variant('unknown-field', (s) => (s.warmup = 30)), field: /field warmup: unknown field/ },
  { name: 'unknown nested field', path: () => variant('unknown-nested', (s) => ((s.cluster as Record<string, unknown>).gpus = 4)), field: /field cluster\.gpus: unknown field/ },
  { name: 'wrong type', path: () => variant('wrong-type', (s) => ((s.cluster as Record<string, unknown>).nodes = '9')), field: /field cluster\.nodes: .*expected number/ },
  { name: 'missing note', path: () => variant('no-note', (s) => delete s.note), field: /field note:/ },
  { name: 'split not adding up', path: () => variant('bad-split', (s) => (s.split = '4P4D')), field: /field split: split 4P4D has 8 nodes but the cluster has 9/ },
  {
    name: 'membership node out of range',
    path: () => variant('bad-membership', (s) => (s.membership = [{ node: 12, at: 60, event: 'down' }])),
    field: /field membership\.0\.node: node 12 is not in the cluster/,
  },
  { name: 'membership bad event', path: () => variant('bad-event', (s) => (s.membership = [{ node: 1, at: 60, event: 'gone' }])), field: /field membership\.0\.event:/ },
  { name: 'unknown preset', path: () => variant('bad-preset', (s) => (s.workload = { preset: 'nope', agents: 3 })), field: /field workload\.preset: unknown workload preset "nope"/ },
  { name: 'agents and arrival rate', path: () => variant('both-loops', (s) => (s.workload = { preset: 'cc', agents: 3, arrivalRate: 0.1 })), field: /field workload\.arrivalRate:/ },
  { name: 'unknown node kind', path: () => variant('bad-kind', (s) => (s.cluster = { nodes: 9, kinds: 'tpu9' })), field: /field cluster\.kinds:/ },
  { name: 'unknown mechanics', path: () => variant('bad-mechanics', (s) => (s.mechanics = 'magic')), field: /field mechanics: unknown mechanics preset "magic"/ },
];

async function cli(args: string[]) {
  const io = bufferIO();
  const code = await runCli(args, io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

describe('bad scenario files', () => {
  for (const c of CASES) {
    it(`${c.name}: one InputError naming the file and field`, () => {
      const path = c.path();
      let error: unknown;
      try {
        loadScenario(path);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(InputError);
      const message = (error as Error).message;
      expect(message.startsWith(`${path}: `), message).toBe(true);
      expect(message).toMatch(c.field);
      expect(message).not.toContain('\n');
    });
  }

  for (const command of ['simulate', 'replay', 'compare']) {
    it(`${command} --scenario with a bad file exits 2 with one line and prints nothing`, async () => {
      const path = variant(`cli-${command}`, (s) => (s.split = '4P4D'));
      const extra = command === 'replay' ? ['--policy', 'seeds/static-4p5d.js'] : [];
      const r = await cli([command, '--scenario', path, ...extra, '--json']);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain(`${path}: field split:`);
    });
  }

  it('evolve and serve --scenario with a bad file exit 2 and write no database', async () => {
    const path = variant('cli-evolve', (s) => (s.membership = [{ node: 40, at: 1, event: 'down' }]));
    for (const command of ['evolve', 'serve']) {
      const db = join(dir, `${command}.db`);
      const r = await cli([command, '--scenario', path, '--db', db, '--json']);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`${path}: field membership.0.node:`);
      expect(r.stdout).toBe('');
      expect(existsSync(db)).toBe(false);
    }
  });

  it('an unknown scenario name lists the known ones; a missing file is named', async () => {
    const r = await cli(['simulate', '--scenario', 'no-such-scenario']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown scenario "no-such-scenario"; known scenarios: bursty-cc, hetero/);
    const m = await cli(['simulate', '--scenario', join(dir, 'missing.json')]);
    expect(m.code).toBe(2);
    expect(m.stderr).toContain('missing.json: scenario file not found');
  });

  it('neither --workload nor --scenario is a one-line usage error, exit 2', async () => {
    for (const args of [['simulate'], ['replay', '--policy', 'seeds/static-4p5d.js'], ['compare'], ['serve', '--db', join(dir, 'none.db')]]) {
      const r = await cli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/give --workload or --scenario/);
    }
  });
});
