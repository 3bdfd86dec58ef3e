import { InputError, SimulationInvariantError } from '../common/errors.js';
import { expandBlocks } from './blocks.js';
import { nextBurstAt } from './bursts.js';
import type { RequestLine, Trace } from './trace-schema.js';
import type { WorkloadEvent, WorkloadSource } from './types.js';

export interface TraceSourceOptions {
  /** Multiplies every recorded time and wait (0.5 replays twice as fast). Default 1. */
  timeScale?: number;
  /** Name for reports; default the header's source. */
  name?: string;
  /**
   * Start every agent at its recorded time, even one that replaced another
   * in a closed loop. By default such an agent starts when the agent it
   * replaced ends, so the replay keeps the recorded number of agents.
   */
  openAgents?: boolean;
}

/** Requests released ahead of the simulator's clock: at most this far ahead, and this many per batch. */
const LOOKAHEAD_SECONDS = 60;
const MAX_BATCH = 512;

/**
 * Replay a trace. A request with no `after` arrives at its recorded time;
 * one with `after` is released `wait` seconds after the last of those
 * completes, so agents stay closed-loop whatever the simulated latencies.
 * An agent that replaced another (closed loop) starts when that one's last
 * branch ends. A branch ends when its `end` request completes. Timed
 * arrivals are fed in bounded batches through `wake` events rather than
 * all at start.
 */
export function createTraceSource(trace: Trace, options: TraceSourceOptions = {}): WorkloadSource {
  const scale = options.timeScale ?? 1;
  if (!(scale > 0) || !Number.isFinite(scale)) throw new InputError(`timeScale must be a number > 0, got ${scale}`);
  const plan = planReplay(trace, options.openAgents ?? false);
  const { requests } = plan;
  const liveBranches = new Map(plan.branchesOfAgent);
  const remaining = Int32Array.from(requests, (r) => r.after.length);
  /** Simulator request id -> index in `requests`. */
  const simToIndex: number[] = [];
  let cursor = 0;
  let wakeToken = 0;

  const emit = (index: number, at: number, out: WorkloadEvent[]): void => {
    const r = requests[index]!;
    const id = simToIndex.length;
    simToIndex.push(index);
    out.push({
      kind: 'request',
      at,
      request: {
        id,
        agent: r.agent ?? -1,
        branch: r.branch ?? -1,
        version: r.version,
        inputTokens: r.input,
        outputTokens: r.output,
        blocks: expandBlocks(r.blocks),
        producedBlocks: expandBlocks(r.produced),
      },
    });
  };

  /** Release timed requests up to the lookahead, then ask to be woken for the rest. */
  const pump = (now: number, out: WorkloadEvent[]): void => {
    const timed = plan.timed;
    let count = 0;
    while (cursor < timed.length && count < MAX_BATCH) {
      const index = timed[cursor]!;
      const at = requests[index]!.t * scale;
      if (at > now + LOOKAHEAD_SECONDS) break;
      emit(index, Math.max(at, now), out);
      cursor++;
      count++;
    }
    if (cursor < timed.length) {
      const nextAt = requests[timed[cursor]!]!.t * scale;
      // A full batch: wake when the simulator reaches the last one released.
      const wakeAt = count === MAX_BATCH ? Math.max(now, requests[timed[cursor - 1]!]!.t * scale) : Math.max(now, nextAt - LOOKAHEAD_SECONDS);
      out.push({ kind: 'wake', at: wakeAt, token: ++wakeToken });
    }
  };

  return {
    name: options.name ?? trace.header.source,
    model: trace.header.model,
    start() {
      const out: WorkloadEvent[] = [];
      pump(0, out);
      return out;
    },
    onComplete(requestId, now) {
      const index = simToIndex[requestId];
      if (index === undefined) throw new SimulationInvariantError(`completion of unknown request ${requestId}`);
      const out: WorkloadEvent[] = [];
      for (const d of plan.dependents[index] ?? []) {
        // Completions arrive in time order, so the last one to finish is this one.
        if (--remaining[d]! === 0) emit(d, releaseAt(requests[d]!, now, scale), out);
      }
      for (const branch of plan.endsAfter.get(index) ?? []) {
        out.push({ kind: 'branch-end', at: now, branch });
        const agent = plan.agentOfBranch.get(branch);
        if (agent === undefined) continue;
        const left = liveBranches.get(agent)! - 1;
        liveBranches.set(agent, left);
        const successor = plan.startsWhenEnded.get(agent);
        if (left === 0 && successor !== undefined) emit(successor, now, out);
      }
      return out;
    },
    onWake(token, now) {
      const out: WorkloadEvent[] = [];
      if (token === wakeToken) pump(now, out);
      return out;
    },
  };
}

/** When a request whose dependencies completed at `now` arrives: after its tool wait, or after the next burst instant and its jitter. */
function releaseAt(r: RequestLine, now: number, scale: number): number {
  const from = r.sync !== undefined ? nextBurstAt(now, r.sync * scale) : now;
  return from + r.wait * scale;
}

interface ReplayPlan {
  requests: RequestLine[];
  /** Indexes of requests with no `after`, by recorded time. */
  timed: number[];
  /** Index -> indexes of the requests that wait for it. */
  dependents: (number[] | undefined)[];
  /** Index -> branches that end when it completes. */
  endsAfter: Map<number, number[]>;
  agentOfBranch: Map<number, number>;
  branchesOfAgent: Map<number, number>;
  /** Agent -> index of the first request of the agent that replaces it (closed loop). */
  startsWhenEnded: Map<number, number>;
}

function planReplay(trace: Trace, openAgents: boolean): ReplayPlan {
  const requests: RequestLine[] = [];
  const agentOfBranch = new Map<number, number>();
  const branchesOfAgent = new Map<number, number>();
  /** Root branch of an agent that replaces another -> the replaced agent. */
  const replacing = new Map<number, number>();
  const startsWhenEnded = new Map<number, number>();
  const indexOf = new Map<number, number>();
  const dependents: (number[] | undefined)[] = [];
  const endsAfter = new Map<number, number[]>();
  const known = (id: number, what: string): number => {
    const i = indexOf.get(id);
    if (i === undefined) throw new InputError(`${what} refers to unknown or later request ${id}`);
    return i;
  };
  for (const e of trace.events) {
    if (e.type === 'agent' || e.type === 'fork' || e.type === 'subagent') {
      agentOfBranch.set(e.branch, e.agent);
      branchesOfAgent.set(e.agent, (branchesOfAgent.get(e.agent) ?? 0) + 1);
      if (e.type === 'agent' && e.replaces !== undefined && !openAgents) replacing.set(e.branch, e.replaces);
    } else if (e.type === 'request') {
      const index = requests.length;
      const replaced = e.branch !== undefined && e.after.length === 0 ? replacing.get(e.branch) : undefined;
      if (replaced !== undefined) {
        startsWhenEnded.set(replaced, index);
        replacing.delete(e.branch!);
      }
      for (const a of e.after) (dependents[known(a, `request ${e.id}`)] ??= []).push(index);
      indexOf.set(e.id, index);
      requests.push(e);
    } else if (e.type === 'end') {
      const i = known(e.after, `end of branch ${e.branch}`);
      const list = endsAfter.get(i);
      if (list) list.push(e.branch);
      else endsAfter.set(i, [e.branch]);
    }
  }
  const timed: number[] = [];
  const gated = new Set(startsWhenEnded.values());
  requests.forEach((r, i) => {
    if (r.after.length === 0 && !gated.has(i)) timed.push(i);
  });
  // Stable: equal times keep file order.
  timed.sort((a, b) => requests[a]!.t - requests[b]!.t || a - b);
  return { requests, timed, dependents, endsAfter, agentOfBranch, branchesOfAgent, startsWhenEnded };
}
