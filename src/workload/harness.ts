import { SimulationInvariantError } from '../common/errors.js';
import { Rng } from '../common/rng.js';
import { appendTokens, BLOCK_TOKENS, copyContext, type BlockIdCursor, type BlockIdPool, type Context } from './blocks.js';
import { burstRelease, subagentDraw, type BurstSpec } from './bursts.js';
import { sample, sampleInt, type Dist } from './dist.js';
import type { AgentKind } from './preset-schema.js';
import type { SharedPrefixes, TaskPrefix } from './shared-prefixes.js';
import type { SimRequest, WorkloadEvent } from './types.js';

/**
 * Sees every harness decision with its dependencies, which the simulator's
 * events do not carry; trace recording listens here.
 */
export interface HarnessObserver {
  /** `replaces`: the agent whose end started this one (closed loop). */
  agent(agent: number, branch: number, kind: string, t: number, replaces?: number): void;
  branch(type: 'fork' | 'subagent', branch: number, parent: number, agent: number, t: number): void;
  /**
   * `after`: requests whose completion released this one; `wait`: seconds after the last of them
   * (after the next multiple of `sync` seconds, when set: a burst, see bursts.ts).
   */
  request(request: SimRequest, t: number, after: readonly number[], wait: number, sync?: number): void;
  compact(branch: number, version: number, t: number): void;
  end(branch: number, lastRequest: number, t: number): void;
}

interface Agent {
  id: number;
  kindName: string;
  kind: AgentKind;
  /** Branches not yet ended; the agent is done at 0. */
  live: number;
  /** First ids of the id chunks its branches took: only its own contexts name them. */
  chunks: number[];
  /** The task prefix it has a seat in, if its kind has one. */
  task: TaskPrefix | null;
}

interface Branch {
  id: number;
  agent: Agent;
  role: 'root' | 'fork' | 'subagent';
  parent: Branch | null;
  /** Per-branch stream, so that a branch's choices do not depend on how other branches interleave. */
  rng: Rng;
  ids: BlockIdCursor;
  ctx: Context;
  version: number;
  callsLeft: number;
  compactAt: number;
  /** The call in flight is the compaction call. */
  compacting: boolean;
  lastRequest: number;
  /** Sub-agents still running; the branch is parked while > 0. */
  waitingOn: number;
  /** Last requests of finished sub-agents: the parent's resume call waits for them. */
  subAfter: number[];
  /** Sub-agent only: tokens its result adds to the parent's context. */
  resultTokens: number;
  children: number;
  path: string;
  /**
   * With an observation window: what was appended after `baseTokens`, in
   * order, so that a dropped observation can be replaced and the rest
   * re-appended. Null when the kind keeps every tool result.
   */
  segments: Segment[] | null;
  baseTokens: number;
}

interface Segment {
  tokens: number;
  /** A tool result still kept in full. */
  observation: boolean;
}

/**
 * The agent harness: trees of branches issuing calls one after another,
 * waiting on tools, forking, launching sub-agents, compacting. Knows nothing
 * of loops or arrival processes; `onAgentDone` tells the owner an agent ended.
 */
export class Harness {
  private readonly inflight = new Map<number, Branch>();
  private retired: Array<[number, number]> = [];
  private nextRequest = 0;
  private nextBranch = 0;
  private nextAgent = 0;

  constructor(
    private readonly seed: number,
    private readonly kinds: Record<string, AgentKind>,
    private readonly pool: BlockIdPool,
    private readonly prefixes: SharedPrefixes,
    private readonly onAgentDone: (agent: number, now: number, out: WorkloadEvent[]) => void,
    private readonly observer?: HarnessObserver,
    /** Synchronised sub-agent bursts; undefined = off (bursts.ts). */
    private readonly bursts?: BurstSpec,
  ) {}

  /** Number the next agent will get (for choosing its kind before it starts). */
  get upcomingAgent(): number {
    return this.nextAgent;
  }

  /** Start an agent whose first call arrives at `at`; `replaces` is the agent it takes the place of. */
  startAgent(kindName: string, at: number, out: WorkloadEvent[], replaces?: number): void {
    const kind = this.kinds[kindName];
    if (!kind) throw new SimulationInvariantError(`unknown agent kind ${kindName}`);
    const base = this.prefixes.agentBase(kindName, kind);
    const agent: Agent = { id: this.nextAgent++, kindName, kind, live: 0, chunks: [], task: base.task };
    const root = this.newBranch(agent, 'root', null, copyContext(base.ctx), kind.calls);
    this.observer?.agent(agent.id, root.id, kindName, at, replaces);
    appendTokens(root.ctx, sampleInt(root.rng, kind.agentPromptTokens), root.ids);
    this.markBase(root);
    // Recorded as the first call's wait: a replay of a replacing agent can hold it back as long.
    const setup = kind.setupSeconds ? sample(root.rng, kind.setupSeconds) : 0;
    this.call(root, at + setup, [], setup, out);
  }

  onComplete(requestId: number, now: number, out: WorkloadEvent[]): void {
    const b = this.inflight.get(requestId);
    if (!b) throw new SimulationInvariantError(`completion of unknown or finished request ${requestId}`);
    this.inflight.delete(requestId);
    const kind = b.agent.kind;
    const compacted = b.compacting;
    if (compacted) this.compact(b, now);
    if (b.callsLeft === 0) return this.endBranch(b, now, out);
    if (!compacted) {
      if (b.role === 'root' && kind.subagents && b.rng.chance(subagentDraw(kind.subagents, this.bursts).probability)) return this.launchSubagents(b, now, out);
      if (b.role !== 'fork' && kind.forks && b.rng.chance(kind.forks.probability)) this.fork(b, now, out);
      this.append(b, sampleInt(b.rng, kind.toolResultTokens), true);
    }
    this.next(b, now, [requestId], out, !compacted);
  }

  private newBranch(agent: Agent, role: Branch['role'], parent: Branch | null, ctx: Context, calls: Dist): Branch {
    const path = parent ? `${parent.path}.${parent.children++}` : 'r';
    const rng = Rng.derive(this.seed, `a${agent.id}/${path}`);
    const c = agent.kind.compaction;
    agent.live++;
    return {
      id: this.nextBranch++,
      agent,
      role,
      parent,
      rng,
      ids: this.pool.cursor(agent.chunks),
      ctx,
      version: 0,
      callsLeft: sampleInt(rng, calls, 1),
      compactAt: c ? sampleInt(rng, c.atTokens, 1) : Infinity,
      compacting: false,
      lastRequest: -1,
      waitingOn: 0,
      subAfter: [],
      resultTokens: 0,
      children: 0,
      path,
      segments: null,
      baseTokens: 0,
    };
  }

  /** Tokens appended from here on are tracked (observation window) or not; the context so far is the base. */
  private markBase(b: Branch): void {
    b.baseTokens = b.ctx.tokens;
    b.segments = b.agent.kind.observationWindow ? [] : null;
  }

  /** Append to the branch's context; an observation beyond the window drops the oldest kept one. */
  private append(b: Branch, tokens: number, observation: boolean): void {
    appendTokens(b.ctx, tokens, b.ids);
    const segs = b.segments;
    if (!segs) return;
    segs.push({ tokens, observation });
    const window = b.agent.kind.observationWindow!;
    let kept = 0;
    for (const seg of segs) if (seg.observation) kept++;
    if (kept <= window.keep) return;
    const oldest = segs.findIndex((seg) => seg.observation);
    // The context up to the dropped observation stays; from there on it is rewritten with fresh block ids.
    let offset = b.baseTokens;
    for (let i = 0; i < oldest; i++) offset += segs[i]!.tokens;
    b.ctx.tokens = offset;
    b.ctx.blocks.length = Math.floor(offset / BLOCK_TOKENS);
    segs[oldest] = { tokens: window.placeholderTokens, observation: false };
    for (let i = oldest; i < segs.length; i++) appendTokens(b.ctx, segs[i]!.tokens, b.ids);
  }

  /** The branch's next call after a tool pause; it compacts first when the context is over its threshold. */
  private next(b: Branch, now: number, after: number[], out: WorkloadEvent[], mayCompact = true): void {
    if (mayCompact && b.ctx.tokens >= b.compactAt) b.compacting = true;
    const wait = sample(b.rng, b.agent.kind.pauseSeconds);
    this.call(b, now + wait, after, wait, out);
  }

  private call(b: Branch, at: number, after: number[], wait: number, out: WorkloadEvent[], sync?: number): void {
    const kind = b.agent.kind;
    const input = b.ctx.tokens;
    const prefix = b.ctx.blocks.length;
    const blocks = b.ctx.blocks.slice();
    const output = b.compacting ? sampleInt(b.rng, kind.compaction!.summaryTokens, 1) : sampleInt(b.rng, kind.outputTokens, 1);
    let produced: number[];
    if (kind.thinking && !b.compacting) {
      // Decode fills blocks with thinking and answer; the history keeps the answer only, on fresh blocks.
      const full = copyContext(b.ctx);
      appendTokens(full, output, b.ids);
      produced = full.blocks.slice(prefix);
      this.append(b, Math.round(output * kind.thinking.keptFraction), false);
    } else {
      this.append(b, output, false);
      produced = b.ctx.blocks.slice(prefix);
    }
    const request: SimRequest = {
      id: this.nextRequest++,
      agent: b.agent.id,
      branch: b.id,
      version: b.version,
      inputTokens: input,
      outputTokens: output,
      blocks,
      producedBlocks: produced,
    };
    b.callsLeft--;
    b.lastRequest = request.id;
    this.inflight.set(request.id, b);
    this.observer?.request(request, at, after, wait, sync);
    out.push({ kind: 'request', at, request });
  }

  /**
   * New context: the shared system prompt plus the summary; every other block
   * is dropped. A compaction exists to shrink the context, so a kept size
   * drawn from the tail of its log-normal is capped one block below the
   * context it replaces.
   */
  private compact(b: Branch, now: number): void {
    const c = b.agent.kind.compaction!;
    b.compacting = false;
    b.version++;
    const before = b.ctx.tokens;
    b.ctx = copyContext(this.prefixes.system(b.agent.kindName, b.agent.kind));
    const kept = sampleInt(b.rng, c.keptTokens);
    appendTokens(b.ctx, Math.min(kept, Math.max(0, before - b.ctx.tokens - BLOCK_TOKENS)), b.ids);
    this.markBase(b);
    b.compactAt = sampleInt(b.rng, c.atTokens, 1);
    this.observer?.compact(b.id, b.version, now);
  }

  /** A side branch on the same context, running beside its parent. */
  private fork(b: Branch, now: number, out: WorkloadEvent[]): void {
    const f = b.agent.kind.forks!;
    const child = this.newBranch(b.agent, 'fork', b, copyContext(b.ctx), f.calls);
    child.baseTokens = b.baseTokens;
    child.segments = b.segments ? b.segments.map((seg) => ({ ...seg })) : null;
    this.observer?.branch('fork', child.id, b.id, b.agent.id, now);
    this.append(child, sampleInt(child.rng, f.promptTokens), false);
    this.next(child, now, [b.lastRequest], out);
  }

  /** Sub-agents start from the system prompt only; the parent is parked until all have ended. */
  private launchSubagents(b: Branch, now: number, out: WorkloadEvent[]): void {
    const s = b.agent.kind.subagents!;
    const n = sampleInt(b.rng, subagentDraw(s, this.bursts).count, 1);
    b.waitingOn = n;
    const system = this.prefixes.system(b.agent.kindName, b.agent.kind);
    for (let i = 0; i < n; i++) {
      const child = this.newBranch(b.agent, 'subagent', b, copyContext(system), s.calls);
      child.resultTokens = sampleInt(b.rng, s.resultTokens);
      this.observer?.branch('subagent', child.id, b.id, b.agent.id, now);
      appendTokens(child.ctx, sampleInt(child.rng, s.promptTokens), child.ids);
      this.markBase(child);
      if (this.bursts) this.holdForBurst(child, now, [b.lastRequest], out, this.bursts);
      else this.next(child, now, [b.lastRequest], out);
    }
  }

  /** A sub-agent's first call waits for the next burst instant instead of a tool pause. */
  private holdForBurst(child: Branch, now: number, after: number[], out: WorkloadEvent[], bursts: BurstSpec): void {
    if (child.ctx.tokens >= child.compactAt) child.compacting = true;
    const release = burstRelease(bursts, now, child.rng);
    this.call(child, release.at, after, release.wait, out, bursts.periodSeconds);
  }

  private endBranch(b: Branch, now: number, out: WorkloadEvent[]): void {
    this.observer?.end(b.id, b.lastRequest, now);
    out.push({ kind: 'branch-end', at: now, branch: b.id });
    const p = b.parent;
    if (b.role === 'subagent' && p) {
      this.append(p, b.resultTokens, false);
      p.subAfter.push(b.lastRequest);
      if (--p.waitingOn === 0) {
        const after = p.subAfter;
        p.subAfter = [];
        this.next(p, now, after, out);
      }
    }
    if (--b.agent.live === 0) this.agentDone(b.agent, now, out);
  }

  /**
   * Every branch of the agent has ended, each after its last request
   * completed: no request can name the agent's own ids again (forks and
   * sub-agents are its own branches; other agents start from shared prefixes
   * only), so they retire, and so does its task prefix once no agent is
   * seated in it and it is no longer handed out.
   */
  private agentDone(agent: Agent, now: number, out: WorkloadEvent[]): void {
    for (const first of agent.chunks) this.retired.push([first, this.pool.chunk]);
    agent.chunks.length = 0;
    if (agent.task) this.prefixes.leave(agent.task);
    this.onAgentDone(agent.id, now, out);
  }

  /** Id ranges no later request names ([first, count]); each range is handed out once. */
  takeRetired(): Array<[number, number]> {
    const shared = this.prefixes.retired;
    for (const first of shared) this.retired.push([first, this.pool.chunk]);
    shared.length = 0;
    const out = this.retired;
    this.retired = [];
    return out;
  }
}
