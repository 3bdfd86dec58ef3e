import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/common/errors.js';
import { BLOCK_TOKENS, generateTrace, loadWorkloadPreset, validateTrace } from '../../src/workload/index.js';
import { byBranch, commonPrefix, eventsOfType, ids, requestsOf, startsWith } from './helpers.js';

/** Harness features added for the calibration: observation window, dropped thinking, agent setup time. */

const dir = mkdtempSync(join(tmpdir(), 'harness-features-'));
const base = {
  systemPromptTokens: 2048,
  agentPromptTokens: 1024,
  outputTokens: 600,
  toolResultTokens: 3000,
  pauseSeconds: 1,
  calls: 12,
};

function preset(name: string, kind: Record<string, unknown>) {
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify({ name, model: 'glm-5.2', loop: { mode: 'closed', agents: 3 }, kinds: { k: { ...base, ...kind } } }));
  return loadWorkloadPreset(file);
}

describe('observation window', () => {
  it('keeps the last N tool results: the context stops growing with them and the part after the dropped one is new', () => {
    const trace = generateTrace(preset('window', { observationWindow: { keep: 2, placeholderTokens: 20 } }), { seed: 3, minutes: 10 });
    validateTrace(trace);
    let rewrites = 0;
    for (const list of byBranch(trace).values()) {
      for (let i = 1; i < list.length; i++) {
        const prev = list[i - 1]!;
        const cur = list[i]!;
        const prevAll = [...ids(prev.blocks), ...ids(prev.produced)];
        const blocks = ids(cur.blocks);
        // Calls 1 and 2 only append; from call 3 on, the oldest kept result (3,000 tokens) becomes 20.
        if (i < 3) {
          expect(startsWith(blocks, prevAll)).toBe(true);
          expect(cur.input).toBe(prev.input + 600 + 3000);
        } else {
          rewrites++;
          expect(cur.input).toBe(prev.input + 600 + 3000 - (3000 - 20));
          // The shared prefix ends inside the context, where the dropped result was: base + i-2 turns kept so far.
          const dropAt = 2048 + 1024 + (i - 3) * (600 + 20) + 600;
          expect(commonPrefix(blocks, prevAll)).toBe(Math.floor(dropAt / BLOCK_TOKENS));
          expect(cur.version).toBe(prev.version);
        }
      }
    }
    expect(rewrites).toBeGreaterThan(10);
  });

  it('rejects a window of 0', () => {
    expect(() => preset('bad-window', { observationWindow: { keep: 0 } })).toThrow(InputError);
  });
});

describe('thinking dropped from the history', () => {
  it('keeps only the answer share of each output, on fresh blocks: the produced blocks are not reused', () => {
    const trace = generateTrace(preset('thinking', { outputTokens: 2000, thinking: { keptFraction: 0.25 } }), { seed: 4, minutes: 10 });
    validateTrace(trace);
    let checked = 0;
    for (const list of byBranch(trace).values()) {
      for (let i = 1; i < list.length; i++) {
        const prev = list[i - 1]!;
        const cur = list[i]!;
        expect(cur.input).toBe(prev.input + 500 + 3000);
        const produced = ids(prev.produced);
        expect(produced.length).toBeGreaterThan(0);
        expect(startsWith(ids(cur.blocks), ids(prev.blocks))).toBe(true);
        expect(ids(cur.blocks).some((b) => produced.includes(b))).toBe(false);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(10);
  });
});

describe('agent setup time', () => {
  it('holds an agent back before its first call and records the wait', () => {
    const trace = generateTrace(preset('setup', { setupSeconds: 45 }), { seed: 5, minutes: 20 });
    validateTrace(trace);
    const agents = eventsOfType(trace, 'agent');
    expect(agents.length).toBeGreaterThan(3);
    const firsts = requestsOf(trace).filter((r) => r.after.length === 0);
    for (const a of agents) {
      const first = firsts.find((r) => r.branch === a.branch);
      if (!first) continue;
      expect(first.t).toBeCloseTo(a.t + 45, 9);
      expect(first.wait).toBe(45);
    }
  });
});
