/**
 * The contract between a workload (preset harness model or recorded trace)
 * and the simulator. The simulator drives a WorkloadSource: it asks for the
 * initial events, tells it when each request completes, and wakes it at the
 * times it asked for. The source decides, from harness logic alone, which
 * requests become ready and when (tool waits, sub-agents, forks, compaction).
 */

/** One LLM call as the simulator sees it. Token counts are whole tokens. */
export interface SimRequest {
  /** Unique per run, assigned by the source in the order requests are emitted. */
  id: number;
  agent: number;
  /** Branch id, unique per run. Harness signal; -1 when unknown (imported traces without signals). */
  branch: number;
  /** Branch context version; +1 after each compaction. */
  version: number;
  /** Prompt tokens (the whole context sent with this call). */
  inputTokens: number;
  /** Tokens to generate (>= 1). The first one is produced by prefill. */
  outputTokens: number;
  /**
   * Ids of the prompt's full 512-token blocks, in order. Ids are chained:
   * an id identifies its whole prefix, so equal ids at position i mean the
   * first i+1 blocks are equal. The partial tail block is not listed.
   */
  blocks: readonly number[];
  /**
   * Ids of the full blocks that exist once this call's output is appended
   * (continuing `blocks`); decode writes them to the pool so that the next
   * call on the branch can reuse its own output. May be empty.
   */
  producedBlocks: readonly number[];
}

export type WorkloadEvent =
  | { kind: 'request'; at: number; request: SimRequest }
  /** The branch will issue no more requests: its KV reference counts are released. */
  | { kind: 'branch-end'; at: number; branch: number }
  /** The source wants to be called back at `at` (open-loop arrivals, trace streaming). */
  | { kind: 'wake'; at: number; token: number };

export interface WorkloadSource {
  /** Human-readable name for reports, e.g. `cc` or a trace file name. */
  readonly name: string;
  /** Model profile name the workload runs on, e.g. `glm-5.2`. */
  readonly model: string;
  /** Events known at time 0. */
  start(): WorkloadEvent[];
  /** A request finished decoding at `now`; returns the events this enables (all at >= now). */
  onComplete(requestId: number, now: number): WorkloadEvent[];
  /** A `wake` event the source asked for is due. */
  onWake(token: number, now: number): WorkloadEvent[];
  /**
   * Block ids that no later request will name, as [first id, count] ranges,
   * taken once: the simulator asks at each branch end and may then reuse
   * the KV directory's room for them once no copy is left. Optional: a source
   * without it (a trace file) never retires ids.
   */
  takeRetired?(): Array<[number, number]>;
}
