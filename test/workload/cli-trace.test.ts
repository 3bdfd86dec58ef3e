import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { InputError, UsageError } from '../../src/common/errors.js';
import { bufferIO } from '../../src/cli/io.js';
import { registerTraceCommand } from '../../src/cli/trace.js';
import { readTrace } from '../../src/workload/index.js';

const dir = mkdtempSync(join(tmpdir(), 'cli-trace-'));

async function run(args: string[]): Promise<ReturnType<typeof bufferIO>> {
  const io = bufferIO();
  const program = new Command().exitOverride().configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) });
  registerTraceCommand(program, io);
  await program.parseAsync(args, { from: 'user' });
  return io;
}

describe('autopoiesis trace', () => {
  const file = join(dir, 'putnam.jsonl');

  it('gen writes a trace and prints a one-line summary', async () => {
    const io = await run(['trace', 'gen', '--workload', 'putnam', '--agents', '12', '--minutes', '20', '--seed', '4', '-o', file]);
    expect(io.stdout).toMatch(/^wrote .*putnam\.jsonl: \d+ requests, \d+ agents, \d+ branches, 20 min of putnam \(seed 4\)\n$/);
    const trace = readTrace(file);
    expect(trace.header).toMatchObject({ source: 'putnam', model: 'glm-5.2', seed: 4, agents: 12, minutes: 20 });
  });

  it('stats prints a table, or one JSON object with --json', async () => {
    const table = await run(['trace', 'stats', file]);
    expect(table.stdout).toContain('requests');
    expect(table.stdout).toMatch(/pause\s+\d+\.\d\d s mean/);
    const json = JSON.parse((await run(['trace', 'stats', file, '--json'])).stdout);
    expect(json).toMatchObject({ source: 'putnam', model: 'glm-5.2' });
    expect(json.requests).toBeGreaterThan(0);
    expect(json.meanPauseSeconds).toBeGreaterThan(0);
  });

  it('rejects bad input with typed errors', async () => {
    await expect(run(['trace', 'gen', '--workload', 'nope', '-o', join(dir, 'x.jsonl')])).rejects.toThrow(InputError);
    await expect(run(['trace', 'gen', '--workload', 'cc', '--minutes', '0', '-o', join(dir, 'x.jsonl')])).rejects.toThrow(UsageError);
    await expect(run(['trace', 'gen', '--workload', 'cc', '--agents', '3', '--arrival-rate', '1', '-o', join(dir, 'x.jsonl')])).rejects.toThrow(UsageError);
    await expect(run(['trace', 'gen', '--workload', 'cc', '--agents', 'many', '-o', join(dir, 'x.jsonl')])).rejects.toThrow(/--agents must be a whole number/);
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, '{"type":"header","format":"autopoiesis-trace","version":1,"model":"m","source":"s"}\n{"type":"request","id":0,"t":0,"output":1}\n');
    await expect(run(['trace', 'stats', bad])).rejects.toThrow(`${bad}:2: field input: `);
  });
});
