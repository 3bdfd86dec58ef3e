import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/common/errors.js';
import { generateTrace, loadWorkloadPreset, parseTrace, readTrace, writeTrace } from '../../src/workload/index.js';

const dir = mkdtempSync(join(tmpdir(), 'trace-io-'));
const HEADER = '{"type":"header","format":"autopoiesis-trace","version":1,"model":"glm-5.2","source":"test"}';
const AGENT = '{"type":"agent","agent":0,"branch":0,"t":0}';
const REQ0 = '{"type":"request","id":0,"agent":0,"branch":0,"version":0,"t":0,"input":1100,"output":10,"blocks":[[0,2]],"produced":[]}';

function errorFor(lines: string[]): InputError {
  try {
    parseTrace(lines.join('\n'), 't.jsonl');
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    return error as InputError;
  }
  throw new Error('expected an InputError');
}

describe('trace files', () => {
  it('round-trips a generated trace through write and read', () => {
    const trace = generateTrace(loadWorkloadPreset('cc'), { seed: 1, agents: 8, minutes: 30 });
    const file = join(dir, 'cc.jsonl');
    writeTrace(file, trace);
    const text = readFileSync(file, 'utf8');
    expect(text.split('\n')[0]).toContain('"format":"autopoiesis-trace"');
    const back = readTrace(file);
    expect(back.header).toEqual(trace.header);
    expect(back.events.length).toBe(trace.events.length);
    // Times are rounded to the microsecond in the file; everything else is exact.
    const strip = (e: object): object => ({ ...e, t: 0, ...('wait' in e ? { wait: 0 } : {}) });
    expect(back.events.map(strip)).toEqual(trace.events.map(strip));
    back.events.forEach((e, i) => expect(e.t).toBeCloseTo(trace.events[i]!.t, 5));
    // Ranges keep the file small: well under a kilobyte per request.
    expect(text.length / back.events.length).toBeLessThan(400);
  });

  it('reads minimal lines with defaults (no harness signals)', () => {
    const t = parseTrace([HEADER, '{"type":"request","id":0,"t":1.5,"input":600,"output":3,"blocks":[7]}', ''].join('\n'), 'x');
    expect(t.events[0]).toMatchObject({ type: 'request', version: 0, after: [], wait: 0, produced: [] });
  });

  it('names the file, line and field of a malformed line', () => {
    const missing = errorFor([HEADER, AGENT, '{"type":"request","id":0,"agent":0,"branch":0,"t":0,"output":10}']);
    expect(missing.message).toMatch(/^t\.jsonl:3: field input: /);
    expect(errorFor([HEADER, AGENT, REQ0.replace('"output":10', '"output":-4')]).message).toMatch(/^t\.jsonl:3: field output: /);
    expect(errorFor([HEADER, AGENT, REQ0.replace('[[0,2]]', '[[0,0]]')]).message).toMatch(/^t\.jsonl:3: field blocks\.0\.1: /);
    expect(errorFor([HEADER, '{"type":"agent",']).message).toMatch(/^t\.jsonl:2: not valid JSON/);
    expect(errorFor([HEADER, '[1,2]']).message).toMatch(/^t\.jsonl:2: expected a JSON object/);
    expect(errorFor([HEADER, '{"type":"bogus"}']).message).toMatch(/^t\.jsonl:2: field type: unknown type "bogus"/);
    expect(errorFor([AGENT]).message).toMatch(/^t\.jsonl:1: field type: the first line must be the header/);
    expect(errorFor([HEADER.replace('"version":1', '"version":2')]).message).toMatch(/^t\.jsonl:1: field version: /);
    expect(errorFor([HEADER, '', '{"type":"agent","agent":0,"branch":0,"t":-1}']).message).toMatch(/^t\.jsonl:3: field t: /);
    expect(errorFor([HEADER, AGENT.replace('}', ',"color":1}')]).message).toMatch(/^t\.jsonl:2: .*color/);
    expect(() => parseTrace('', 'empty.jsonl')).toThrow(/empty\.jsonl: empty trace/);
  });

  it('checks references, versions and token counts', () => {
    const cases: [string[], RegExp][] = [
      [[HEADER, AGENT, REQ0, REQ0], /t\.jsonl:4: field id: request 0 is already defined/],
      [[HEADER, AGENT, REQ0.replace('"t":0,', '"t":0,"after":[5],')], /t\.jsonl:3: field after\.0: request 5 is unknown or defined later/],
      [[HEADER, AGENT, REQ0.replace('"branch":0', '"branch":3')], /t\.jsonl:3: field branch: unknown branch 3/],
      [[HEADER, AGENT, REQ0.replace('"agent":0', '"agent":1')], /t\.jsonl:3: field agent: branch 0 belongs to agent 0, not 1/],
      [[HEADER, AGENT, REQ0.replace('"version":0', '"version":1')], /t\.jsonl:3: field version: branch 0 is at version 0, not 1/],
      [[HEADER, AGENT, REQ0.replace('"input":1100', '"input":1000')], /t\.jsonl:3: field input: 1000 tokens cannot fill 2 blocks/],
      [[HEADER, AGENT, REQ0.replace('"produced":[]', '"produced":[9]')], /t\.jsonl:3: field produced: /],
      [[HEADER, AGENT, '{"type":"fork","branch":1,"parent":7,"agent":0,"t":1}'], /t\.jsonl:3: field parent: unknown branch 7/],
      [[HEADER, AGENT, '{"type":"subagent","branch":0,"parent":0,"agent":0,"t":1}'], /t\.jsonl:3: field branch: branch 0 is already defined/],
      [[HEADER, AGENT, '{"type":"compact","branch":0,"version":2,"t":1}'], /t\.jsonl:3: field version: .*must bring it to 1/],
      [[HEADER, AGENT, '{"type":"agent","agent":1,"branch":1,"replaces":4,"t":1}'], /t\.jsonl:3: field replaces: agent 4 is unknown/],
      [[HEADER, AGENT, REQ0, '{"type":"end","branch":0,"after":0,"t":2}', REQ0.replace('"id":0', '"id":1')], /t\.jsonl:5: field branch: branch 0 has already ended/],
      [[HEADER, AGENT, '{"type":"agent","agent":1,"branch":1,"t":0}', REQ0, '{"type":"end","branch":1,"after":0,"t":2}'], /t\.jsonl:5: field after: request 0 is not on branch 1/],
    ];
    for (const [lines, pattern] of cases) expect(errorFor(lines).message).toMatch(pattern);
  });

  it('reports a missing file', () => {
    expect(() => readTrace(join(dir, 'absent.jsonl'))).toThrow(/absent\.jsonl: trace file not found/);
    const file = join(dir, 'bad.jsonl');
    writeFileSync(file, `${HEADER}\n${AGENT}\n{"type":"request"}\n`);
    expect(() => readTrace(file)).toThrow(`${file}:3: field id: `);
  });
});
