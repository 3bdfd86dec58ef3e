import type { NodeHardware, PrefillWork } from '../../src/sim/hardware.js';
import type { SimRequest, WorkloadEvent, WorkloadSource } from '../../src/workload/types.js';

/** Hand-made hardware with round numbers and no noise, so that tests can compute expected times. */
export function fakeHardware(over: Partial<{
  l1Blocks: number;
  l2Blocks: number;
  fetchPerToken: number;
  prefillPerToken: number;
  decodeIter: number;
  tAcc: number;
  restart: number;
  maxDecodeBatch: number;
}> = {}): NodeHardware {
  const prefillPerToken = over.prefillPerToken ?? 1e-4;
  const decodeIter = over.decodeIter ?? 0.02;
  const model = {
    prefillTime: (batch: readonly PrefillWork[]) => 0.01 + batch.reduce((s, w) => s + w.uncachedTokens * prefillPerToken, 0),
    decodeTime: () => decodeIter,
  };
  return {
    kind: 'gb300',
    truth: model,
    engine: model,
    l1Blocks: over.l1Blocks ?? 10_000,
    l2Blocks: over.l2Blocks ?? 40_000,
    maxPrefillBatchTokens: 16_384,
    maxDecodeBatch: over.maxDecodeBatch ?? 256,
    tokensPerDecodeIteration: over.tAcc ?? 1,
    fetchSeconds: (peer, host) => (peer + host) * (over.fetchPerToken ?? 1e-5),
    transferSeconds: () => 0,
    restartSeconds: () => over.restart ?? 700,
  };
}

export interface ScriptedRequest {
  at: number;
  branch?: number;
  version?: number;
  input: number;
  output: number;
  blocks: number[];
  produced?: number[];
  /** End the branch when this request completes. */
  endsBranch?: boolean;
}

/** An open-loop source that emits the given requests at their times. */
export function scriptedSource(requests: ScriptedRequest[], model = 'glm-5.2'): WorkloadSource & { completed: Map<number, number>; completions: number[] } {
  const completed = new Map<number, number>();
  /** Every completion reported, in order (a request completed twice appears twice). */
  const completions: number[] = [];
  const reqs: SimRequest[] = requests.map((r, id) => ({
    id,
    agent: 0,
    branch: r.branch ?? id,
    version: r.version ?? 0,
    inputTokens: r.input,
    outputTokens: r.output,
    blocks: r.blocks,
    producedBlocks: r.produced ?? [],
  }));
  return {
    name: 'scripted',
    model,
    completed,
    completions,
    start: () => reqs.map((request, i): WorkloadEvent => ({ kind: 'request', at: requests[i]!.at, request })),
    onComplete(id, now) {
      completed.set(id, now);
      completions.push(id);
      return requests[id]!.endsBranch ? [{ kind: 'branch-end', at: now, branch: reqs[id]!.branch }] : [];
    },
    onWake: () => [],
  };
}

export function range(start: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => start + i);
}
