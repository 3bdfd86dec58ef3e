import { BLOCK_TOKENS } from './blocks.js';
import type { TraceEvent } from './trace-schema.js';

export interface TraceStats {
  requests: number;
  /** Agent lines, or distinct agent ids on requests when the trace has none. */
  agents: number;
  branches: number;
  forks: number;
  subagents: number;
  compactions: number;
  meanInputTokens: number;
  /** Prompt tokens not covered by blocks of any earlier request (its prompt or its output). */
  meanNewTokens: number;
  /** Prompt tokens an earlier request already produced: the ideal cache hit. */
  meanCachedTokens: number;
  /** Sum of cached over sum of input tokens. */
  idealHitRate: number;
  meanOutputTokens: number;
  /** Mean `wait` over requests that wait for others (tool time); 0 if none do. */
  meanPauseSeconds: number;
  /** Last event time minus first. */
  durationSeconds: number;
  /**
   * Present only when some request carries an `inferred` marker (an imported
   * trace whose harness signals were inferred); absent on recorded traces so
   * that their figures keep their shape.
   */
  requestsWithInferredSignals?: number;
  /** Inferred requests that extend their branch's last prompt. */
  inferredContinuations?: number;
  /** Inferred requests that keep only a short prefix of their branch (a `compact` line precedes them). */
  inferredCompactions?: number;
  /** Inferred requests that start a new branch (one agent each). */
  inferredBranches?: number;
}

/** Figures of a trace, in file order ("earlier" means an earlier line). */
export function traceStats(events: readonly TraceEvent[]): TraceStats {
  const seen = new Set<number>();
  const agentIds = new Set<number>();
  const branchIds = new Set<number>();
  let agentLines = 0;
  let forks = 0;
  let subagents = 0;
  let compactions = 0;
  let requests = 0;
  let input = 0;
  let cached = 0;
  let output = 0;
  let pauses = 0;
  let pauseSum = 0;
  const inferred = { continuation: 0, compaction: 0, branch: 0 };
  let first = Infinity;
  let last = -Infinity;
  for (const e of events) {
    first = Math.min(first, e.t);
    last = Math.max(last, e.t);
    switch (e.type) {
      case 'agent':
        agentLines++;
        branchIds.add(e.branch);
        break;
      case 'fork':
      case 'subagent':
        if (e.type === 'fork') forks++;
        else subagents++;
        branchIds.add(e.branch);
        break;
      case 'compact':
        compactions++;
        break;
      case 'request': {
        requests++;
        input += e.input;
        output += e.output;
        if (e.agent !== undefined) agentIds.add(e.agent);
        if (e.branch !== undefined) branchIds.add(e.branch);
        if (e.after.length) {
          pauses++;
          pauseSum += e.wait;
        }
        if (e.inferred) inferred[e.inferred]++;
        cached += Math.min(e.input, cachedPrefix(e.blocks, seen) * BLOCK_TOKENS);
        addAll(e.blocks, seen);
        addAll(e.produced, seen);
        break;
      }
      case 'end':
        break;
    }
  }
  const per = (x: number): number => (requests ? x / requests : 0);
  const inferredTotal = inferred.continuation + inferred.compaction + inferred.branch;
  const inferredCounts = inferredTotal
    ? { requestsWithInferredSignals: inferredTotal, inferredContinuations: inferred.continuation, inferredCompactions: inferred.compaction, inferredBranches: inferred.branch }
    : {};
  return {
    requests,
    agents: agentLines || agentIds.size,
    branches: branchIds.size,
    forks,
    subagents,
    compactions,
    meanInputTokens: per(input),
    meanNewTokens: per(input - cached),
    meanCachedTokens: per(cached),
    idealHitRate: input ? cached / input : 0,
    meanOutputTokens: per(output),
    meanPauseSeconds: pauses ? pauseSum / pauses : 0,
    durationSeconds: events.length ? last - first : 0,
    ...inferredCounts,
  };
}

/** Blocks matched from the start: ids are chained, so the first miss ends the shared prefix. */
function cachedPrefix(list: readonly (number | readonly [number, number])[], seen: Set<number>): number {
  let n = 0;
  for (const item of list) {
    const [start, count] = typeof item === 'number' ? [item, 1] : item;
    for (let k = 0; k < count; k++) {
      if (!seen.has(start + k)) return n;
      n++;
    }
  }
  return n;
}

function addAll(list: readonly (number | readonly [number, number])[], seen: Set<number>): void {
  for (const item of list) {
    if (typeof item === 'number') seen.add(item);
    else for (let k = 0; k < item[1]; k++) seen.add(item[0] + k);
  }
}
