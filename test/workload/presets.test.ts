import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/common/errors.js';
import { listWorkloadPresets, loadWorkloadPreset } from '../../src/workload/index.js';

const dir = mkdtempSync(join(tmpdir(), 'presets-'));

function writePreset(name: string, body: unknown): string {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(body));
  return file;
}

function errorOf(fn: () => unknown): InputError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    return error as InputError;
  }
  throw new Error('expected an InputError');
}

const minimalKind = {
  systemPromptTokens: 1000,
  agentPromptTokens: 500,
  outputTokens: { mean: 100, cv: 0.5 },
  toolResultTokens: 200,
  pauseSeconds: 1,
  calls: 3,
};

describe('workload presets', () => {
  it('lists the shipped presets', () => {
    expect(listWorkloadPresets()).toEqual(expect.arrayContaining(['cc', 'osworld', 'putnam', 'shifting']));
  });

  it('loads every shipped preset with its model', () => {
    expect(loadWorkloadPreset('cc').model).toBe('glm-5.2');
    expect(loadWorkloadPreset('putnam').model).toBe('glm-5.2');
    expect(loadWorkloadPreset('osworld').model).toBe('kimi-k2.6');
    const cc = loadWorkloadPreset('cc');
    expect(cc.loop).toMatchObject({ mode: 'closed', agents: 126 });
    expect(loadWorkloadPreset('putnam').loop).toMatchObject({ mode: 'closed', agents: 224 });
    expect(loadWorkloadPreset('osworld').loop).toMatchObject({ mode: 'closed', agents: 128 });
  });

  it('resolves kinds that refer to other presets (shifting)', () => {
    const shifting = loadWorkloadPreset('shifting');
    expect(Object.keys(shifting.kinds).sort()).toEqual(['osworld', 'putnam']);
    expect(shifting.kinds.putnam).toEqual(loadWorkloadPreset('putnam').kinds.putnam);
    expect(shifting.phases.map((p) => p.startSeconds)).toEqual([0, 3600, 7200]);
  });

  it('names the known presets when one is unknown', () => {
    const e = errorOf(() => loadWorkloadPreset('nope'));
    expect(e.message).toContain('unknown workload preset "nope"');
    expect(e.message).toContain('cc, osworld, putnam, shifting');
  });

  it('loads a preset from a path and reports a missing file', () => {
    const file = writePreset('mine.json', { name: 'mine', model: 'glm-5.2', loop: { mode: 'open', agentsPerSecond: 0.5 }, kinds: { a: minimalKind } });
    const preset = loadWorkloadPreset(file);
    expect(preset.name).toBe('mine');
    expect(preset.kinds.a!.outputTokens).toEqual({ mean: 100, cv: 0.5 });
    expect(preset.kinds.a!.pauseSeconds).toEqual({ mean: 1, cv: 0 });
    expect(preset.phases).toEqual([{ startSeconds: 0, mix: { a: 1 } }]);
    expect(errorOf(() => loadWorkloadPreset(join(dir, 'absent.json'))).message).toContain('not found');
  });

  it('rejects negative and missing values naming the file and field', () => {
    const neg = writePreset('neg.json', {
      name: 'neg',
      model: 'm',
      loop: { mode: 'closed', agents: 4 },
      kinds: { a: { ...minimalKind, outputTokens: { mean: -5, cv: 0.2 } } },
    });
    const e1 = errorOf(() => loadWorkloadPreset(neg));
    expect(e1.message).toContain(neg);
    expect(e1.where?.field).toBe('kinds.a.outputTokens.mean');

    const { pauseSeconds: _drop, ...withoutPause } = minimalKind;
    const missing = writePreset('missing.json', { name: 'x', model: 'm', loop: { mode: 'closed', agents: 4 }, kinds: { a: withoutPause } });
    expect(errorOf(() => loadWorkloadPreset(missing)).where?.field).toBe('kinds.a.pauseSeconds');

    const agents = writePreset('agents.json', { name: 'x', model: 'm', loop: { mode: 'closed', agents: -1 }, kinds: { a: minimalKind } });
    expect(errorOf(() => loadWorkloadPreset(agents)).where?.field).toBe('loop.agents');
  });

  it('checks mixes and phases', () => {
    const twoKinds = { a: minimalKind, b: minimalKind };
    const noMix = writePreset('nomix.json', { name: 'x', model: 'm', loop: { mode: 'closed', agents: 4 }, kinds: twoKinds });
    expect(errorOf(() => loadWorkloadPreset(noMix)).where?.field).toBe('mix');
    const badKind = writePreset('badkind.json', {
      name: 'x',
      model: 'm',
      loop: { mode: 'closed', agents: 4 },
      kinds: twoKinds,
      phases: [{ startSeconds: 0, mix: { a: 1 } }, { startSeconds: 10, mix: { c: 1 } }],
    });
    expect(errorOf(() => loadWorkloadPreset(badKind)).where?.field).toBe('phases.1.mix.c');
    const order = writePreset('order.json', {
      name: 'x',
      model: 'm',
      loop: { mode: 'closed', agents: 4 },
      kinds: twoKinds,
      phases: [{ startSeconds: 0, mix: { a: 1 } }, { startSeconds: 0, mix: { b: 1 } }],
    });
    expect(errorOf(() => loadWorkloadPreset(order)).where?.field).toBe('phases.1.startSeconds');
  });

  it('rejects invalid JSON and reference cycles', () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"name": ');
    expect(errorOf(() => loadWorkloadPreset(bad)).message).toContain('not valid JSON');
    const a = join(dir, 'cyc-a.json');
    const b = join(dir, 'cyc-b.json');
    writeFileSync(a, JSON.stringify({ name: 'a', model: 'm', loop: { mode: 'closed', agents: 1 }, kinds: { k: { from: b } } }));
    writeFileSync(b, JSON.stringify({ name: 'b', model: 'm', loop: { mode: 'closed', agents: 1 }, kinds: { k: { from: a } } }));
    expect(errorOf(() => loadWorkloadPreset(a)).message).toContain('cycle');
  });
});
