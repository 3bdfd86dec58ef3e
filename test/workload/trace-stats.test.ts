import { describe, expect, it } from 'vitest';
import { parseTrace, traceStats } from '../../src/workload/index.js';

const HEADER = '{"type":"header","format":"autopoiesis-trace","version":1,"model":"glm-5.2","source":"hand"}';

describe('trace stats', () => {
  it('counts requests, structure, new and ideally cached tokens, pauses', () => {
    const trace = parseTrace(
      [
        HEADER,
        '{"type":"agent","agent":0,"branch":0,"t":0}',
        // 2 blocks of prompt (1100 tokens, 2 full blocks), output fills block 2.
        '{"type":"request","id":0,"agent":0,"branch":0,"t":0,"input":1100,"output":500,"blocks":[[10,2]],"produced":[12]}',
        // Next call: blocks 10,11,12 cached (1536 of 2100), 13 is new.
        '{"type":"request","id":1,"agent":0,"branch":0,"t":10,"after":[0],"wait":6,"input":2100,"output":100,"blocks":[[10,4]]}',
        '{"type":"subagent","branch":1,"parent":0,"agent":0,"t":12}',
        // Sub-agent shares only block 10 (a system prompt); 11 differs: 512 cached of 1500.
        '{"type":"request","id":2,"agent":0,"branch":1,"t":14,"after":[1],"wait":2,"input":1500,"output":20,"blocks":[10,20]}',
        '{"type":"fork","branch":2,"parent":0,"agent":0,"t":14}',
        '{"type":"compact","branch":0,"version":1,"t":15}',
        '{"type":"end","branch":1,"after":2,"t":20}',
        '{"type":"request","id":3,"agent":0,"branch":0,"version":1,"t":21,"after":[2],"wait":1,"input":700,"output":100,"blocks":[10]}',
      ].join('\n'),
      'hand.jsonl',
    );
    const s = traceStats(trace.events);
    expect(s).toEqual({
      requests: 4,
      agents: 1,
      branches: 3,
      forks: 1,
      subagents: 1,
      compactions: 1,
      meanInputTokens: (1100 + 2100 + 1500 + 700) / 4,
      meanCachedTokens: (0 + 1536 + 512 + 512) / 4,
      meanNewTokens: (1100 + 564 + 988 + 188) / 4,
      idealHitRate: (1536 + 512 + 512) / 5400,
      meanOutputTokens: (500 + 100 + 20 + 100) / 4,
      meanPauseSeconds: (6 + 2 + 1) / 3,
      durationSeconds: 21,
    });
  });

  it('handles traces without harness signals and empty traces', () => {
    const plain = parseTrace([HEADER, '{"type":"request","id":0,"t":5,"input":600,"output":3,"blocks":[1]}', '{"type":"request","id":1,"t":8,"input":600,"output":3,"blocks":[1]}'].join('\n'), 'p');
    const s = traceStats(plain.events);
    expect(s).toMatchObject({ requests: 2, agents: 0, branches: 0, meanCachedTokens: 256, meanPauseSeconds: 0, durationSeconds: 3 });
    expect(traceStats([])).toMatchObject({ requests: 0, meanInputTokens: 0, durationSeconds: 0 });
  });
});
