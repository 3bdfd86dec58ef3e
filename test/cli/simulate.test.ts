import { mkdtempSync, writeFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { bufferIO } from '../../src/cli/io.js';

async function cli(args: string[]) {
  const io = bufferIO();
  const code = await runCli(args, io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

const small = ['--workload', 'cc', '--agents', '24', '--warmup-min', '2', '--minutes', '3'];

describe('autopoiesis simulate', () => {
  it('prints exactly one JSON object with the documented fields', async () => {
    const r = await cli(['simulate', ...small, '--json']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const out = JSON.parse(lines[0]!);
    expect(Object.keys(out).sort()).toEqual(['config', 'learning', 'metrics', 'simSeconds', 'slices', 'wallSeconds']);
    // The engine's learned iteration-time model: the fields the calibration reads.
    expect(out.learning.mode).toBe('online');
    expect(out.learning).toHaveProperty('convergedAtSeconds');
    for (const key of ['prefillSingle', 'prefillBatch', 'decode', 'mean']) expect(out.learning.mape).toHaveProperty(key);
    for (const key of ['throughput', 'ttft', 'e2e', 'tpotMs', 'kvHitRate', 'lostKvReusePct', 'uncachedTokensPerRequest', 'prefillQueueWait', 'prefillMostLoadedOverAvg', 'transitions', 'requestsCompleted', 'requestsInFlight']) {
      expect(out.metrics).toHaveProperty(key);
    }
    expect(out.metrics.ttft).toHaveProperty('p95');
    expect(out.slices).toHaveLength(5);
    expect(out.metrics.throughput).toBeGreaterThan(0);
  });

  it('is deterministic: the same seed gives byte-identical output (wallSeconds aside)', async () => {
    const strip = (s: string) => s.replace(/"wallSeconds":[0-9.e-]+/, '');
    const a = await cli(['simulate', ...small, '--seed', '7', '--json']);
    const b = await cli(['simulate', ...small, '--seed', '7', '--json']);
    const c = await cli(['simulate', ...small, '--seed', '8', '--json']);
    expect(strip(a.stdout)).toBe(strip(b.stdout));
    expect(strip(a.stdout)).not.toBe(strip(c.stdout));
  });

  it('runs every mechanics preset', async () => {
    for (const mechanics of ['evolving-infra', 'sglang-pd', 'dynamo', 'sglang-pd,fetch=async,pool=shared']) {
      const r = await cli(['simulate', ...small, '--mechanics', mechanics, '--json']);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).metrics.requestsCompleted).toBeGreaterThan(0);
    }
  });

  it('prints a readable table without --json', async () => {
    const r = await cli(['simulate', ...small, '--slices']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/throughput \(req\/s\)/);
    expect(r.stdout).toMatch(/^model: online fit (converged at \d+ s|not converged)/m);
    expect(r.stdout).toMatch(/KV hit rate actual \/ ideal/);
    expect(r.stdout).toMatch(/minute\s+scored\s+split/);
  });

  it('serves an elastic scenario with a node down and back up', async () => {
    const r = await cli(['simulate', ...small, '--elastic', '2:down@150,2:up@250', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).metrics.requestsCompleted).toBeGreaterThan(0);
  });

  describe('bad input: one line, exit 2, nothing written', () => {
    const cases: [string, string[], RegExp][] = [
      ['unknown preset', ['--workload', 'nope'], /unknown workload preset "nope"/],
      ['split that does not add up', ['--workload', 'cc', '--split', '4P4D'], /split.*8 nodes.*9/],
      ['malformed split', ['--workload', 'cc', '--split', 'four'], /field split/],
      ['unknown mechanic', ['--workload', 'cc', '--mechanics', 'vllm'], /unknown mechanics preset "vllm"/],
      ['unknown mechanic value', ['--workload', 'cc', '--mechanics', 'dynamo,fetch=sometimes'], /mechanics\.fetch/],
      ['bad number', ['--workload', 'cc', '--agents', '-3'], /--agents/],
      ['unknown node kind', ['--workload', 'cc', '--node-kind', 'tpu'], /tpu/],
      ['node outside the cluster', ['--workload', 'cc', '--elastic', '12:down@5'], /node 12/],
    ];
    for (const [name, args, pattern] of cases) {
      it(name, async () => {
        const r = await cli(['simulate', ...args, '--json']);
        expect(r.code).toBe(2);
        expect(r.stdout).toBe('');
        expect(r.stderr.trim().split('\n')).toHaveLength(1);
        expect(r.stderr).toMatch(pattern);
      });
    }

    it('a malformed trace line names file and line', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'ap-'));
      const file = join(dir, 'bad.jsonl');
      writeFileSync(file, '{"type":"header","format":"autopoiesis-trace","version":1,"model":"glm-5.2","source":"test"}\n{"type":"request",\n');
      const r = await cli(['simulate', '--workload', file, '--json']);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/bad\.jsonl:2/);
      expect(readdirSync(dir)).toEqual(['bad.jsonl']);
    });

    it('a negative profile value names the file and field', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'ap-'));
      const file = join(dir, 'neg.json');
      writeFileSync(file, JSON.stringify({ profile: 'node-kind', name: 'neg' }));
      const r = await cli(['simulate', '--workload', 'cc', '--node-kind', file, '--json']);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/neg\.json/);
      expect(r.stderr).toMatch(/field/);
    });
  });
});
