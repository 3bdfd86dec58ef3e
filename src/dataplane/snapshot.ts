import type { Snapshot } from '../evaluate/index.js';
import { knobsToReach, type MembershipChange, type Role } from '../sim/index.js';
import { encodeBlocks, type Trace, type TraceEvent } from '../workload/index.js';
import { TRACE_FORMAT, TRACE_VERSION } from '../workload/trace-schema.js';
import type { RecordedEnd, RecordedRequest } from './recording-source.js';
import type { WindowCapture } from './window.js';

/**
 * Assemble an evaluator Snapshot from a capture of the ring. Pure: reads the
 * capture, builds new objects, changes nothing (the ring's records are
 * shared, not copied), so it can run off the serving path.
 *
 * Times are re-based on the start of the capture (the base step's end).
 *
 * Dependencies: a request released by the completion of request X (it came
 * out of `onComplete(X, c)` at time `at`) becomes `after: [X], wait: at - c`
 * when X arrived within the snapshot, so the replay keeps the agent
 * closed-loop whatever its latencies; otherwise (X before the snapshot, or a
 * request released by the clock) it arrives open-loop at its recorded time.
 * Only the releasing completion is known from the source's events (a
 * harness resuming after several sub-agents waited on all of them; the
 * others completed earlier).
 *
 * Harness structure: the source's events do not say how branches were
 * created, so the trace defines them from what it saw, in a way the trace
 * checker accepts: a branch's first request in the snapshot defines it, as
 * the root of a new agent when its agent has no live branch in the snapshot,
 * else as a fork of one of them; a version step becomes compaction lines;
 * a branch end becomes an `end` line when its last request is in the
 * snapshot. Agent ids are renumbered densely (the simulator does not use
 * them; branches and block ids, which the KV cache uses, are kept). Request
 * ids are renumbered densely in file order.
 *
 * Cluster: the roles at the start are the base step's (a node switching
 * counts as its target role); nodes down at the start go down at 0; the
 * membership changes of the snapshot's steps keep their order, re-timed.
 */
export function snapshotFromCapture(capture: WindowCapture): Snapshot {
  const t0 = capture.base.end;
  const requests: RecordedRequest[] = [];
  const ends: RecordedEnd[] = [];
  const membership: MembershipChange[] = [];
  capture.base.nodes.forEach((n, node) => {
    if (n.state === 'down') membership.push({ node, at: 0, event: 'down' });
  });
  for (const step of capture.steps) {
    for (const r of step.requests) requests.push(r);
    for (const e of step.ends) ends.push(e);
    for (const m of step.membership) membership.push({ node: m.node, event: m.event, at: Math.max(0, m.at - t0) });
  }
  const roles: Role[] = capture.base.nodes.map((n) => n.targetRole ?? n.role);
  const end = capture.steps.length ? capture.steps[capture.steps.length - 1]!.end : t0;
  return {
    label: `${capture.meta.label} ${fmt(t0)}-${fmt(end)} s`,
    trace: {
      header: {
        type: 'header',
        format: TRACE_FORMAT,
        version: TRACE_VERSION,
        model: capture.meta.model,
        source: `data plane: ${capture.meta.label}`,
        from: t0,
        to: end,
      },
      events: traceEvents(requests, ends, t0),
    },
    roles,
    nodeKinds: [...capture.meta.nodeKinds],
    mechanics: capture.meta.mechanics,
    ...knobsOf(capture),
    warmupSeconds: capture.warmupSeconds,
    windowSeconds: capture.windowSeconds,
    membership,
    seed: capture.meta.seed,
  };
}

/** The knobs a deployed policy had set where the capture starts, if any differ from the run's mechanics. */
function knobsOf(capture: WindowCapture): Pick<Snapshot, 'knobs'> {
  const knobs = knobsToReach(capture.meta.mechanics, capture.base.mechanics);
  return knobs ? { knobs } : {};
}

interface BranchState {
  agent: number;
  version: number;
  live: boolean;
}

/** Trace lines for requests and branch ends (each list in arrival order), re-timed on t0. */
function traceEvents(requests: readonly RecordedRequest[], ends: readonly RecordedEnd[], t0: number): TraceEvent[] {
  const out: TraceEvent[] = [];
  /** Recorded request id -> trace request id. */
  const ids = new Map<number, number>();
  /** Recorded request id -> its branch (when the trace carries it). */
  const branchOf = new Map<number, number>();
  const branches = new Map<number, BranchState>();
  /** Recorded agent (or, without one, branch) -> trace agent id and its live branches. */
  const agents = new Map<string, { id: number; live: Set<number> }>();
  /** Trace agent id -> its live branches (the same sets). */
  const liveOf = new Map<number, Set<number>>();
  let nextAgent = 0;
  const t = (at: number) => Math.max(0, at - t0);

  const defineBranch = (r: RecordedRequest['request'], at: number): BranchState => {
    const key = r.agent >= 0 ? `a${r.agent}` : `b${r.branch}`;
    let agent = agents.get(key);
    if (agent && agent.live.size > 0) {
      const parent = agent.live.values().next().value as number;
      out.push({ type: 'fork', branch: r.branch, parent, agent: agent.id, t: t(at) });
    } else {
      agent = { id: nextAgent++, live: new Set() };
      agents.set(key, agent);
      liveOf.set(agent.id, agent.live);
      out.push({ type: 'agent', agent: agent.id, branch: r.branch, t: t(at) });
    }
    agent.live.add(r.branch);
    const state: BranchState = { agent: agent.id, version: 0, live: true };
    branches.set(r.branch, state);
    return state;
  };

  const addRequest = (rec: RecordedRequest): void => {
    const r = rec.request;
    const id = ids.size;
    ids.set(r.id, id);
    const dep = rec.releasedBy !== null ? ids.get(rec.releasedBy) : undefined;
    const timing = dep !== undefined ? { t: t(rec.at), after: [dep], wait: rec.at - rec.releasedAt! } : { t: t(rec.at), after: [], wait: 0 };
    let signals: { agent: number; branch: number; version: number } | undefined;
    const known = branches.get(r.branch);
    if (r.branch >= 0 && (known === undefined || (known.live && known.version <= r.version))) {
      const b = known ?? defineBranch(r, rec.at);
      while (b.version < r.version) out.push({ type: 'compact', branch: r.branch, version: ++b.version, t: t(rec.at) });
      signals = { agent: b.agent, branch: r.branch, version: b.version };
      branchOf.set(r.id, r.branch);
    }
    out.push({
      type: 'request',
      id,
      ...(signals ?? { version: 0 }),
      ...timing,
      input: r.inputTokens,
      output: r.outputTokens,
      blocks: encodeBlocks(r.blocks),
      produced: encodeBlocks(r.producedBlocks),
    });
  };

  const addEnd = (rec: RecordedEnd): void => {
    const after = ids.get(rec.after);
    const b = branches.get(rec.branch);
    if (after === undefined || !b || !b.live || branchOf.get(rec.after) !== rec.branch) return;
    b.live = false;
    liveOf.get(b.agent)!.delete(rec.branch);
    out.push({ type: 'end', branch: rec.branch, after, t: t(rec.at) });
  };

  // Merge the two lists by (time, emission order): a line only refers to earlier lines.
  let i = 0;
  let j = 0;
  while (i < requests.length || j < ends.length) {
    const r = requests[i];
    const e = ends[j];
    if (r && (!e || r.at < e.at || (r.at === e.at && r.seq < e.seq))) {
      addRequest(r);
      i++;
    } else {
      addEnd(e!);
      j++;
    }
  }
  return out;
}

function fmt(s: number): string {
  return String(Math.round(s * 1000) / 1000);
}

export type { Trace };
