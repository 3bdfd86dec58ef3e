import { describe, expect, it } from 'vitest';
import { bufferIO } from '../../src/cli/io.js';
import { queueProgress } from '../../src/cli/queue-progress.js';

describe('--queue progress (evolve, suite, serve)', () => {
  it('names the connected workers, or says that none is and how long it has waited', () => {
    const io = { ...bufferIO(), errIsTTY: true };
    const p = queueProgress('suite', 'redis://127.0.0.1:6379/q1', 300, io);
    expect(p.address).toMatchObject({ host: '127.0.0.1', port: 6379, name: 'q1' });
    expect(p.note()).toBe('');
    let changes = 0;
    p.onChange = () => changes++;
    p.onStatus({ workers: 0, pending: 4, waitingMs: 12_400 });
    expect(p.note()).toBe('no worker connected: waiting (12/300 s)');
    p.onStatus({ workers: 1, pending: 4, waitingMs: 0 });
    expect(p.note()).toBe('1 worker');
    p.onStatus({ workers: 3, pending: 0, waitingMs: 0 });
    expect(p.note()).toBe('3 workers');
    p.onStatus({ workers: null, pending: 2, waitingMs: 5_000 });
    expect(p.note()).toBe('Redis not answering (5/300 s)');
    expect(changes).toBe(4);
    // On a terminal the line carries it: nothing else is written.
    expect(io.stderr).toBe('');
  });

  it('off a terminal says once that it waits (again after a worker came and went), naming the command', () => {
    const io = bufferIO();
    const p = queueProgress('serve', 'redis://127.0.0.1:6379/q2', 60, io);
    p.onStatus({ workers: 0, pending: 1, waitingMs: 1_000 });
    p.onStatus({ workers: 0, pending: 1, waitingMs: 2_000 });
    expect(io.stderr).toBe('serve: no worker connected to redis://127.0.0.1:6379/q2; waiting up to 60 s (--queue-timeout)\n');
    p.onStatus({ workers: 1, pending: 1, waitingMs: 0 });
    p.onStatus({ workers: 0, pending: 1, waitingMs: 1_000 });
    expect(io.stderr.split('\n').filter(Boolean)).toHaveLength(2);
  });

  it('a bad URL is an input error naming --queue', () => {
    expect(() => queueProgress('suite', 'redis://127.0.0.1:6379/no way', 1, bufferIO())).toThrow(/queue name "no way"/);
  });
});
