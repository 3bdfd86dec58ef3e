import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from '../../../src/common/errors.js';
import {
  listModels,
  listNodeKinds,
  loadModel,
  loadNodeKind,
  numericLeafPaths,
  packageRoot,
  profilesDir,
} from '../../../src/sim/profiles/index.js';

const tmp = mkdtempSync(join(tmpdir(), 'profiles-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function shipped(name: string): Record<string, any> {
  return JSON.parse(readFileSync(join(profilesDir(), `${name}.json`), 'utf8'));
}

/** Write a variant of a shipped profile to a temp file and return its path. */
function variant(name: string, edit: (p: Record<string, any>) => void, file = `${name}-${Math.random().toString(36).slice(2)}.json`): string {
  const p = shipped(name);
  edit(p);
  const path = join(tmp, file);
  writeFileSync(path, JSON.stringify(p));
  return path;
}

function errorOf(fn: () => unknown): InputError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(InputError);
    return err as InputError;
  }
  throw new Error('expected an InputError');
}

describe('profile loader', () => {
  it('finds the package root and the shipped profiles', () => {
    expect(JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')).name).toBe('autopoiesis');
    expect(listNodeKinds()).toEqual(['gb200', 'gb300', 'h200']);
    expect(listModels()).toEqual(['glm-5.2', 'kimi-k2.6']);
  });

  it('loads every shipped profile, and every assumed value has a note', () => {
    for (const name of listNodeKinds()) {
      const kind = loadNodeKind(name);
      expect(kind.name).toBe(name);
      expect(kind.gpusPerNode).toBe(4);
      expect(kind.tensorParallel).toBe(4);
      const missing = numericLeafPaths(kind).filter((p) => !kind.notes?.[p]);
      expect(missing, `${name}: values without a note`).toEqual([]);
    }
    for (const name of listModels()) {
      const model = loadModel(name);
      expect(model.name).toBe(name);
      const missing = numericLeafPaths(model).filter((p) => !model.notes?.[p]);
      expect(missing, `${name}: values without a note`).toEqual([]);
    }
  });

  it('loads the calibration setup values of gb300', () => {
    const k = loadNodeKind('gb300');
    expect(k.restart).toMatchObject({ minSeconds: 666, meanSeconds: 754, maxSeconds: 831 });
    expect(k.relativeSpeed).toMatchObject({ prefillCompute: 1, decodeMemory: 1 });
    expect(k.noiseCv).toBeGreaterThanOrEqual(0.02);
    expect(k.noiseCv).toBeLessThanOrEqual(0.03);
  });

  it('gb200 and h200 are slower than gb300', () => {
    for (const name of ['gb200', 'h200']) {
      const k = loadNodeKind(name);
      expect(k.relativeSpeed.prefillCompute).toBeLessThan(1);
      expect(k.relativeSpeed.decodeMemory).toBeLessThan(1);
    }
  });

  it('accepts a path to a JSON file', () => {
    const path = variant('glm-5.2', (p) => {
      p.name = 'custom';
    });
    expect(loadModel(path).name).toBe('custom');
  });

  it('rejects an unknown name, listing the known ones', () => {
    const err = errorOf(() => loadNodeKind('b300'));
    expect(err.message).toContain('unknown node kind "b300"');
    expect(err.message).toContain('gb200, gb300, h200');
    expect(errorOf(() => loadModel('gpt-9')).message).toContain('glm-5.2, kimi-k2.6');
  });

  it('does not take a model for a node kind', () => {
    expect(errorOf(() => loadNodeKind('glm-5.2')).message).toContain('unknown node kind "glm-5.2"');
    const path = variant('glm-5.2', () => {});
    expect(errorOf(() => loadNodeKind(path)).message).toContain(`${path}: field profile:`);
  });

  it('rejects a negative value, naming file and field', () => {
    const path = variant('glm-5.2', (p) => {
      p.decode.d0 = -0.001;
    });
    expect(errorOf(() => loadModel(path)).message).toMatch(new RegExp(`^${escape(path)}: field decode\\.d0: `));
  });

  it('rejects zero where a positive value is required', () => {
    const path = variant('gb300', (p) => {
      p.memory.hostKvBytes = 0;
    });
    expect(errorOf(() => loadNodeKind(path)).message).toContain(`${path}: field memory.hostKvBytes: `);
  });

  it('accepts zero where only non-negative is required', () => {
    const path = variant('glm-5.2', (p) => {
      p.prefill.c3 = 0;
    });
    expect(loadModel(path).prefill.c3).toBe(0);
  });

  it('rejects a missing value, naming file and field', () => {
    const path = variant('gb300', (p) => {
      delete p.transfer.fetchLatency;
    });
    expect(errorOf(() => loadNodeKind(path)).message).toContain(`${path}: field transfer.fetchLatency: `);
    const path2 = variant('kimi-k2.6', (p) => {
      delete p.speculative;
    });
    expect(errorOf(() => loadModel(path2)).message).toContain(`${path2}: field speculative: `);
  });

  it('rejects an unknown field (a typo)', () => {
    const path = variant('glm-5.2', (p) => {
      p.decode.d3 = 1;
    });
    expect(errorOf(() => loadModel(path)).message).toContain(`${path}: field decode: `);
  });

  it('rejects inconsistent values', () => {
    const accepted = variant('glm-5.2', (p) => {
      p.speculative.tokensAccepted = 5;
    });
    expect(errorOf(() => loadModel(accepted)).message).toContain('field speculative.tokensAccepted');
    const experts = variant('glm-5.2', (p) => {
      p.shape.expertsPerToken = 300;
    });
    expect(errorOf(() => loadModel(experts)).message).toContain('field shape.expertsPerToken');
    const restart = variant('gb300', (p) => {
      p.restart.meanSeconds = 670;
    });
    expect(errorOf(() => loadNodeKind(restart)).message).toContain('field restart.meanSeconds');
  });

  it('rejects a note about a field that does not exist', () => {
    const path = variant('gb300', (p) => {
      p.notes['memory.gpuBytes'] = 'stale';
    });
    expect(errorOf(() => loadNodeKind(path)).message).toContain('field notes.memory.gpuBytes');
  });

  it('allows _comment strings in sections', () => {
    const path = variant('gb300', (p) => {
      p.transfer._comment = 'why';
    });
    expect(loadNodeKind(path).transfer._comment).toBe('why');
  });

  it('reports unreadable and malformed files', () => {
    const missing = join(tmp, 'nope.json');
    expect(errorOf(() => loadModel(missing)).message).toContain(`${missing}: cannot read profile`);
    const bad = join(tmp, 'bad.json');
    writeFileSync(bad, '{ "profile": ');
    expect(errorOf(() => loadModel(bad)).message).toContain(`${bad}: not valid JSON`);
  });
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
