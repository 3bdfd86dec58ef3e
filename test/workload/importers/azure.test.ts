import { describe, expect, it } from 'vitest';
import { InputError } from '../../../src/common/errors.js';
import { importAzure, traceStats, validateTrace } from '../../../src/workload/index.js';
import { ids, requestsOf } from '../helpers.js';
import { AZURE_FILE, HAVE_TRACES, SKIP_NOTE, handMade } from './fixtures.js';

const HEAD = 'TIMESTAMP,ContextTokens,GeneratedTokens';

describe.skipIf(!HAVE_TRACES)(`Azure import of the 2023 conversation trace${SKIP_NOTE}`, () => {
  it('imports every row; no prefix information means no reuse', () => {
    const trace = importAzure(AZURE_FILE);
    validateTrace(trace, AZURE_FILE);
    expect(trace.header).toMatchObject({ model: 'glm-5.2', source: 'azure:azure-llm-conv-2023.csv' });
    const s = traceStats(trace.events);
    expect(s.requests).toBe(19_366);
    // 18:15:46.6805900 to 19:14:08.4025270.
    expect(s.durationSeconds).toBeCloseTo(3501.721937, 5);
    expect(s.idealHitRate).toBe(0);
    const all = requestsOf(trace).flatMap((r) => ids(r.blocks));
    expect(new Set(all).size).toBe(all.length);
  });
});

describe('Azure import of hand-made files', () => {
  it('parses 7-digit fractions, times from the earliest row, fresh blocks per request', () => {
    const file = handMade('ok.csv', [HEAD, '2023-11-16 18:15:46.6805900,1100,44', '2023-11-16 18:15:50.9951690,300,109', '2023-11-16 18:16:01,1024,1']);
    const [a, b, c] = requestsOf(importAzure(file));
    expect(a).toMatchObject({ id: 0, t: 0, input: 1100, output: 44, after: [] });
    expect(b!.t).toBeCloseTo(4.314579, 9);
    expect(c!.t).toBeCloseTo(14.31941, 9);
    expect(ids(a!.blocks)).toEqual([0, 1]);
    expect(ids(b!.blocks)).toEqual([]);
    expect(ids(c!.blocks)).toEqual([2, 3]);
  });

  it('finds columns by name and accepts CRLF line ends', () => {
    const file = handMade('crlf.csv', ['GeneratedTokens,TIMESTAMP,ContextTokens\r', '7,2023-01-01 00:00:00.5,600\r']);
    expect(requestsOf(importAzure(file))[0]).toMatchObject({ input: 600, output: 7, t: 0 });
  });

  const cases: [string, string, RegExp][] = [
    ['a bad time', '2023-11-16 18:15,10,1', /bad\.csv:3: field TIMESTAMP: expected a time/],
    ['an impossible date', '2023-02-30 00:00:00,10,1', /bad\.csv:3: field TIMESTAMP: /],
    ['a word for a count', '2023-11-16 18:15:47,many,1', /bad\.csv:3: field ContextTokens: expected a whole number/],
    ['zero generated tokens', '2023-11-16 18:15:47,10,0', /bad\.csv:3: field GeneratedTokens: /],
    ['a missing column', '2023-11-16 18:15:47,10', /bad\.csv:3: expected 3 columns, got 2/],
  ];
  it.each(cases)('rejects %s with file:line: field', (_, row, message) => {
    const file = handMade('bad.csv', [HEAD, '2023-11-16 18:15:46.6805900,374,44', row]);
    expect(() => importAzure(file)).toThrow(InputError);
    expect(() => importAzure(file)).toThrow(message);
  });

  it('rejects a header without the expected columns', () => {
    const file = handMade('head.csv', ['TIME,ContextTokens,GeneratedTokens', '2023-11-16 18:15:46,1,1']);
    expect(() => importAzure(file)).toThrow(/head\.csv:1: field TIMESTAMP: the header row has no column TIMESTAMP/);
  });
});
