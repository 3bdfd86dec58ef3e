import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NewCandidate } from '../../src/store/index.js';

export function tempDir(prefix = 'lineage-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function tempDbPath(name = 'lineage.db'): string {
  return join(tempDir(), name);
}

/** A minimal evaluated candidate; override what the test is about. */
export function evaluated<Ref = number>(overrides: Partial<NewCandidate<Ref>> = {}): NewCandidate<Ref> {
  return {
    island: 0,
    mutator: 'structural',
    code: `function shouldReschedule(ctx) { return false; }\nfunction schedule(ctx) { return ctx.plan; } // ${Math.random()}`,
    status: 'evaluated',
    fitness: 100,
    breakdown: { reschedules: 1, schedSeconds: 0.1, staleSeconds: 1, reconfigSeconds: 2, serveSeconds: 96.9, makespanSeconds: 99.9 },
    metrics: { throughput: 12.5, ttft: { p50: 0.4, p95: 1.2 } },
    features: { rescheduleCount: 1, schedCpuMsPerCall: 0.02, nodesSwitchedPerReschedule: 2 },
    cell: '1,0,2',
    ...overrides,
  };
}

export function failed<Ref = number>(kind: string, overrides: Partial<NewCandidate<Ref>> = {}): NewCandidate<Ref> {
  return {
    island: 0,
    mutator: 'llm',
    model: 'test-model',
    code: `function schedule( { // ${Math.random()}`,
    status: 'failed',
    failureKind: kind,
    failureMessage: `${kind} happened`,
    promptTokens: 1200,
    completionTokens: 300,
    ...overrides,
  };
}
