import { describe, expect, it } from 'vitest';
import { InputError } from '../../../src/common/errors.js';
import { importMooncake, traceStats, validateTrace } from '../../../src/workload/index.js';
import { ids, requestsOf } from '../helpers.js';
import { HAVE_TRACES, MOONCAKE_FILE, SKIP_NOTE, handMade, mooncakeLine } from './fixtures.js';

describe.skipIf(!HAVE_TRACES)(`Mooncake import of the conversation trace${SKIP_NOTE}`, () => {
  it('imports every line with the figures the traces README gives', () => {
    const trace = importMooncake(MOONCAKE_FILE);
    validateTrace(trace, MOONCAKE_FILE);
    expect(trace.header).toMatchObject({ format: 'autopoiesis-trace', model: 'glm-5.2', source: 'mooncake:mooncake-conversation.jsonl' });
    const s = traceStats(trace.events);
    expect(s.requests).toBe(12_031);
    expect(Math.round(s.meanInputTokens)).toBe(12_035);
    expect(Math.round(s.meanOutputTokens)).toBe(343);
    // About one hour, open loop, no harness signals.
    expect(s.durationSeconds / 60).toBeGreaterThan(55);
    expect(s.durationSeconds / 60).toBeLessThan(62);
    expect(s).toMatchObject({ agents: 0, branches: 0, compactions: 0, meanPauseSeconds: 0 });
    expect(s.requestsWithInferredSignals).toBeUndefined();
    // Conversations reuse their history: a large part of the prompt is an ideal hit.
    expect(s.idealHitRate).toBeGreaterThan(0.3);
    for (const r of requestsOf(trace)) {
      expect(r.after).toEqual([]);
      expect(r.input).toBeGreaterThanOrEqual(ids(r.blocks).length * 512);
    }
  });

  it('stops after --limit lines', () => {
    const trace = importMooncake(MOONCAKE_FILE, { maxLines: 100, model: 'kimi-k2.6' });
    expect(requestsOf(trace)).toHaveLength(100);
    expect(trace.header).toMatchObject({ model: 'kimi-k2.6', limit: 100 });
  });
});

describe('Mooncake import of hand-made files', () => {
  it('uses t = timestamp / 1000 and drops hash ids past the full blocks', () => {
    const file = handMade('tail.jsonl', [mooncakeLine(0, [0, 1, 2], 1300, 4), mooncakeLine(2500, [0, 1, 3, 4], 2048, 1)]);
    const [a, b] = requestsOf(importMooncake(file));
    // 1300 tokens fill 2 blocks; id 2 stands for the 276-token tail and is dropped.
    expect(a).toMatchObject({ id: 0, t: 0, input: 1300, output: 4, after: [], produced: [] });
    expect(ids(a!.blocks)).toEqual([0, 1]);
    expect(b).toMatchObject({ id: 1, t: 2.5, input: 2048, output: 1 });
    expect(ids(b!.blocks)).toEqual([0, 1, 3, 4]);
  });

  it('sorts rows by time, keeping line order on ties; ids still name the line', () => {
    const file = handMade('order.jsonl', [mooncakeLine(3000, [0]), mooncakeLine(1000, [0, 5]), mooncakeLine(1000, [0, 6])]);
    expect(requestsOf(importMooncake(file)).map((r) => r.id)).toEqual([1, 2, 0]);
  });

  const cases: [string, string, RegExp][] = [
    ['not JSON', '{"timestamp": 0,', /bad\.jsonl:2: not valid JSON/],
    ['a missing field', '{"timestamp": 0, "input_length": 600, "hash_ids": [0]}', /bad\.jsonl:2: field output_length: /],
    ['a zero output', '{"timestamp": 0, "input_length": 600, "output_length": 0, "hash_ids": [0]}', /bad\.jsonl:2: field output_length: /],
    ['a string input', '{"timestamp": 0, "input_length": "600", "output_length": 3, "hash_ids": [0]}', /bad\.jsonl:2: field input_length: /],
    ['a negative time', '{"timestamp": -5, "input_length": 600, "output_length": 3, "hash_ids": [0]}', /bad\.jsonl:2: field timestamp: /],
    ['a bad hash id', '{"timestamp": 0, "input_length": 1100, "output_length": 3, "hash_ids": [0, 1.5]}', /bad\.jsonl:2: field hash_ids\.1: /],
    ['a broken chain', mooncakeLine(0, [9, 1]), /bad\.jsonl:2: field hash_ids\.0: block 9 comes at the start of the prompt here but after 0/],
  ];
  it.each(cases)('rejects %s with file:line: field', (_, line, message) => {
    const file = handMade('bad.jsonl', [mooncakeLine(0, [0, 9]), line]);
    expect(() => importMooncake(file)).toThrow(InputError);
    expect(() => importMooncake(file)).toThrow(message);
  });

  it('skips blank lines but counts them in line numbers, and names a missing file', () => {
    const file = handMade('blank.jsonl', [mooncakeLine(0, [0]), '', '{"timestamp": 1}']);
    expect(() => importMooncake(file)).toThrow(/blank\.jsonl:3: field input_length/);
    expect(() => importMooncake('/nonexistent/x.jsonl')).toThrow(/\/nonexistent\/x\.jsonl: file not found/);
  });
});
