import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/common/errors.js';
import { buildCluster, MECHANICS_PRESETS, parseSplit, Simulator } from '../../src/sim/index.js';
import { createTraceSource, formatTrace, generateTrace, loadWorkloadPreset, parseTrace } from '../../src/workload/index.js';

/**
 * Random damage to valid traces (a field deleted, a value of the wrong type
 * or out of range, a line truncated, swapped, duplicated or dropped, bad
 * JSON) only ever ends in the typed one-line InputError naming the file and
 * line, never another exception. A damaged trace that still parses must
 * also open and replay without anything else being thrown: what parses is
 * what the simulator accepts.
 */
const FILE = 'damaged.jsonl';
const bases = [
  formatTrace(generateTrace(loadWorkloadPreset('cc'), { seed: 1, minutes: 4, agents: 3 })),
  formatTrace(generateTrace(loadWorkloadPreset('osworld'), { seed: 2, minutes: 2, agents: 3 })),
].map((text) => text.split('\n').filter((l) => l !== ''));

const oddValue = fc.oneof(
  fc.constantFrom(-1, -0.5, 0, 0.5, 1.5, 2 ** 26, 2 ** 31, 2 ** 53, 2 ** 60, 1e300, -1e300, 1e9),
  fc.double(),
  fc.integer(),
  fc.string({ maxLength: 8 }),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.integer({ min: -5, max: 2 ** 31 }), { maxLength: 3 }),
  fc.constantFrom([-1, 3], [2 ** 30, 2 ** 30], [0, 1e9], [5, 0], [0, 2 ** 26], [2 ** 26 - 1, 2], [1.5, 2]),
  fc.dictionary(fc.string({ maxLength: 4 }), fc.integer(), { maxKeys: 2 }),
);

/** Values of the right type but any size: they pass a line's shape and test the rules and the replay behind it. */
const bigNumber = fc.oneof(fc.constantFrom(0, 1, 511, 512, 2 ** 26 - 1, 2 ** 26, 2 ** 31, 2 ** 40, 2 ** 53 - 1), fc.nat(), fc.double({ min: 0, max: 1e7, noNaN: true }));

type Mutation =
  | { kind: 'delete-field' | 'set-field'; line: number; key: number; value?: unknown }
  | { kind: 'set-element'; line: number; key: number; index: number; value: unknown }
  | { kind: 'request-field'; line: number; field: string; value: unknown }
  | { kind: 'truncate'; line: number; at: number }
  | { kind: 'swap'; line: number; other: number }
  | { kind: 'duplicate' | 'drop'; line: number }
  | { kind: 'garbage'; line: number; at: number; text: string };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('delete-field' as const), line: fc.nat(), key: fc.nat() }),
  fc.record({ kind: fc.constant('set-field' as const), line: fc.nat(), key: fc.nat(), value: oddValue }),
  fc.record({ kind: fc.constant('set-element' as const), line: fc.nat(), key: fc.nat(), index: fc.nat(), value: oddValue }),
  fc.record({ kind: fc.constant('set-field' as const), line: fc.nat(), key: fc.nat(), value: bigNumber }),
  fc.record({ kind: fc.constant('set-element' as const), line: fc.nat(), key: fc.nat(), index: fc.nat(), value: fc.oneof(bigNumber, fc.tuple(bigNumber, bigNumber)) }),
  // Aimed at request lines, whose numbers and block lists feed the replay.
  fc.record({
    kind: fc.constant('request-field' as const),
    line: fc.nat(),
    field: fc.constantFrom('input', 'output', 'blocks', 'produced', 't', 'wait', 'sync', 'after', 'version', 'id', 'branch', 'agent'),
    value: fc.oneof(bigNumber, oddValue, fc.array(fc.oneof(bigNumber, fc.tuple(bigNumber, bigNumber)), { minLength: 1, maxLength: 3 })),
  }),
  fc.record({ kind: fc.constant('truncate' as const), line: fc.nat(), at: fc.nat() }),
  fc.record({ kind: fc.constant('swap' as const), line: fc.nat(), other: fc.nat() }),
  fc.record({ kind: fc.constantFrom('duplicate' as const, 'drop' as const), line: fc.nat() }),
  fc.record({ kind: fc.constant('garbage' as const), line: fc.nat(), at: fc.nat(), text: fc.constantFrom('{', '}', ',', '"', 'NaN', '\u0000', '[', ':1') }),
);

function apply(lines: string[], m: Mutation): string[] {
  const out = lines.slice();
  if (out.length === 0) return out;
  if (m.kind === 'request-field') {
    const requests = out.flatMap((l, k) => (l.includes('"type":"request"') ? [k] : []));
    if (requests.length === 0) return out;
    const k = requests[m.line % requests.length]!;
    const obj = JSON.parse(out[k]!) as Record<string, unknown>;
    obj[m.field] = m.value;
    out[k] = JSON.stringify(obj);
    return out;
  }
  const i = m.line % out.length;
  const line = out[i]!;
  switch (m.kind) {
    case 'truncate':
      out[i] = line.slice(0, m.at % (line.length + 1));
      return out;
    case 'swap': {
      const j = m.other % out.length;
      [out[i], out[j]] = [out[j]!, line];
      return out;
    }
    case 'duplicate':
      out.splice(i, 0, line);
      return out;
    case 'drop':
      out.splice(i, 1);
      return out;
    case 'garbage': {
      const at = m.at % (line.length + 1);
      out[i] = line.slice(0, at) + m.text + line.slice(at);
      return out;
    }
    default: {
      let obj: Record<string, unknown>;
      try {
        obj = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return out; // already not JSON: leave it
      }
      const keys = Object.keys(obj);
      const key = keys[m.key % keys.length]!;
      if (m.kind === 'delete-field') delete obj[key];
      else if (m.kind === 'set-field') obj[key] = m.value;
      else {
        const arr = obj[key];
        if (!Array.isArray(arr) || arr.length === 0) obj[key] = [m.value];
        else arr[m.index % arr.length] = m.value;
      }
      out[i] = JSON.stringify(obj);
      return out;
    }
  }
}

/** Parse, open and replay briefly; returns the error thrown, or null. */
function load(text: string): { error: unknown; phase: 'parse' | 'replay' } | null {
  let trace;
  try {
    trace = parseTrace(text, FILE);
  } catch (error) {
    return { error, phase: 'parse' };
  }
  try {
    const source = createTraceSource(trace);
    const { hardware, policyModel } = buildCluster(['gb300', 'gb300'], source.model, 1);
    new Simulator({ hardware, roles: parseSplit('1P1D', 2), mechanics: MECHANICS_PRESETS['evolving-infra'], source, seed: 1, warmupSeconds: 0, scoredSeconds: 240, policyModel }).run();
  } catch (error) {
    return { error, phase: 'replay' };
  }
  return null;
}

function expectOneLineInputError(outcome: { error: unknown; phase: string }, lineCount: number): void {
  const { error } = outcome;
  const described = error instanceof Error ? `${error.constructor.name}: ${error.stack}` : String(error);
  expect(error, described).toBeInstanceOf(InputError);
  const e = error as InputError;
  expect(e.message).not.toMatch(/\n/);
  expect(e.message).not.toMatch(/\bat .*\.(ts|js):\d+/);
  if (outcome.phase === 'parse') {
    // `damaged.jsonl:LINE: [field F: ]message`, or the file alone for a trace without a header.
    expect(e.message).toMatch(/^damaged\.jsonl(:\d+)?: \S/);
    if (e.where?.line !== undefined) expect(e.where.line).toBeGreaterThanOrEqual(1), expect(e.where.line).toBeLessThanOrEqual(lineCount);
  }
}

describe('damaged traces (property)', () => {
  it('only ever end in a one-line InputError naming file and line', () => {
    fc.assert(
      fc.property(fc.nat({ max: bases.length - 1 }), fc.array(mutation, { minLength: 1, maxLength: 3 }), (b, mutations) => {
        const lines = mutations.reduce(apply, bases[b]!);
        const outcome = load(lines.join('\n') + '\n');
        if (outcome) expectOneLineInputError(outcome, lines.length);
      }),
      { seed: 20261201, numRuns: 600 },
    );
  });

  it('the undamaged traces load and replay (the property is not vacuous)', () => {
    for (const lines of bases) expect(load(lines.join('\n') + '\n')).toBeNull();
  });

  // Found by the property: these parsed, then the replay threw a RangeError
  // in the KV directory (block id past its 26 bits) or V8 aborted the whole
  // process expanding a range of hundreds of millions of ids.
  it.each([
    ['a block id past the largest', { blocks: [2 ** 26] }, /:3: field blocks\.0: /],
    ['a range running past the largest id', { blocks: [[2 ** 26 - 2, 3]] }, /:3: field blocks\.0: the range runs past the largest block id 67108863$/],
    ['a huge range with a huge input', { input: 2 ** 40, blocks: [[0, 2 ** 28]] }, /:3: field input: /],
    ['a huge output with huge produced blocks', { output: 2 ** 40, produced: [[0, 2 ** 20]] }, /:3: field output: /],
  ])('regression: %s is refused when parsed', (_label, change, message) => {
    const lines = bases[0]!.slice();
    const i = lines.findIndex((l) => l.includes('"type":"request"'));
    expect(i).toBe(2);
    lines[i] = JSON.stringify({ ...(JSON.parse(lines[i]!) as object), ...change });
    const outcome = load(lines.join('\n') + '\n');
    expect(outcome?.phase).toBe('parse');
    expect(outcome?.error).toBeInstanceOf(InputError);
    expect((outcome?.error as Error).message).toMatch(message);
  });
});
