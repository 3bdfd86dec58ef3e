import { existsSync, readdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/common/errors.js';
import { bufferIO } from '../../../src/cli/io.js';
import { runCli } from '../../../src/cli/main.js';
import { registerTraceCommand } from '../../../src/cli/trace.js';
import { readTrace } from '../../../src/workload/index.js';
import { requestsOf } from '../helpers.js';
import { AZURE_FILE, HAVE_TRACES, MOONCAKE_FILE, SKIP_NOTE, handMade, mooncakeLine, tmpPath } from './fixtures.js';

async function run(args: string[]): Promise<ReturnType<typeof bufferIO>> {
  const io = bufferIO();
  const program = new Command().exitOverride().configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) });
  registerTraceCommand(program, io);
  await program.parseAsync(args, { from: 'user' });
  return io;
}

describe('autopoiesis trace import', () => {
  const conv = handMade('cli.jsonl', [mooncakeLine(0, [0, 1, 2]), mooncakeLine(0, [0, 5]), mooncakeLine(30_000, [0, 1, 2, 3])]);

  it('writes the trace and prints a one-line summary with the inferred counts', async () => {
    const out = tmpPath('cli-out.jsonl');
    const io = await run(['trace', 'import', '--format', 'mooncake', conv, '-o', out, '--model', 'kimi-k2.6']);
    expect(io.stdout).toBe(`wrote ${out}: 3 requests over 0.5 min from mooncake:cli.jsonl; inferred signals on 3 requests (1 continuations, 0 compactions, 2 branches)\n`);
    const trace = readTrace(out);
    expect(trace.header).toMatchObject({ model: 'kimi-k2.6', source: 'mooncake:cli.jsonl' });
    const stats = await run(['trace', 'stats', out]);
    expect(stats.stdout).toMatch(/inferred signals\s+3 requests: 1 continuations, 0 compactions, 2 new branches/);
    const json = JSON.parse((await run(['trace', 'stats', out, '--json'])).stdout);
    expect(json).toMatchObject({ requestsWithInferredSignals: 3, inferredContinuations: 1, inferredCompactions: 0, inferredBranches: 2 });
  });

  it('--no-infer keeps plain requests; --limit stops early', async () => {
    const out = tmpPath('cli-plain.jsonl');
    const io = await run(['trace', 'import', '--format', 'mooncake', conv, '-o', out, '--no-infer', '--limit', '2']);
    expect(io.stdout).toMatch(/: 2 requests over 0\.0 min .*; no inferred signals\n$/);
    const trace = readTrace(out);
    expect(trace.events.every((e) => e.type === 'request' && e.branch === undefined && e.inferred === undefined)).toBe(true);
    expect((await run(['trace', 'stats', out])).stdout).not.toContain('inferred');
  });

  it('a malformed line exits 2 naming file, line and field, and leaves no output behind', async () => {
    const bad = handMade('cli-bad.jsonl', [mooncakeLine(0, [0]), '{"timestamp": 5, "input_length": 600, "output_length": "x", "hash_ids": [0]}']);
    const out = tmpPath('never/written.jsonl');
    const io = bufferIO();
    const code = await runCli(['trace', 'import', '--format', 'mooncake', bad, '-o', out], io);
    expect(code).toBe(2);
    expect(io.stderr).toMatch(new RegExp(`^autopoiesis: ${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2: field output_length: `));
    expect(existsSync(out)).toBe(false);
    expect(existsSync(dirname(out)) ? readdirSync(dirname(out)) : []).toEqual([]);
  });

  it('rejects an unknown format and a bad --limit', async () => {
    await expect(run(['trace', 'import', '--format', 'sharegpt', conv, '-o', tmpPath('x.jsonl')])).rejects.toThrow(UsageError);
    await expect(run(['trace', 'import', '--format', 'mooncake', conv, '-o', tmpPath('x.jsonl'), '--limit', '0'])).rejects.toThrow(/--limit must be between 1/);
    expect(await runCli(['trace', 'import', '--format', 'sharegpt', conv, '-o', tmpPath('x.jsonl')], bufferIO())).toBe(2);
  });

  it.skipIf(!HAVE_TRACES)(`imports both public traces${SKIP_NOTE}`, async () => {
    const io = await run(['trace', 'import', '--format', 'azure', AZURE_FILE, '-o', tmpPath('azure.jsonl'), '--limit', '500']);
    expect(io.stdout).toMatch(/: 500 requests over .* from azure:azure-llm-conv-2023\.csv; inferred signals on 500 requests \(0 continuations, 0 compactions, 500 branches\)/);
    await run(['trace', 'import', '--format', 'mooncake', MOONCAKE_FILE, '-o', tmpPath('mooncake.jsonl')]);
    expect(requestsOf(readTrace(tmpPath('mooncake.jsonl')))).toHaveLength(12_031);
  });
});
