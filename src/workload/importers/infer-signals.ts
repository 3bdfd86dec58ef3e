import { InputError } from '../../common/errors.js';
import { expandBlocks } from '../blocks.js';
import { NOMINAL_BASE_SECONDS, NOMINAL_SECONDS_PER_OUTPUT_TOKEN } from '../nominal.js';
import type { AgentLine, CompactLine, EndLine, RequestLine, Trace, TraceEvent } from '../trace-schema.js';
import { BranchTable, type RememberedBranch } from './branch-table.js';

export interface InferOptions {
  /** Branches remembered for matching, by last use. Default 4096. */
  maxBranches?: number;
  /** A compaction keeps fewer than this fraction of the branch's last prompt blocks. Default 0.5. */
  compactKeepBelow?: number;
  /** ...of a branch whose last prompt had at least this many full blocks. Default 8 (4,096 tokens). */
  minCompactBlocks?: number;
}

export const INFER_DEFAULTS: Required<InferOptions> = { maxBranches: 4096, compactKeepBelow: 0.5, minCompactBlocks: 8 };

/** Trace times are rounded to the microsecond: a call issued right at its predecessor's completion must still count as after it. */
const IDLE_SLACK_SECONDS = 1e-6;

type Placement =
  | { kind: 'continuation' | 'compaction'; branch: RememberedBranch }
  /** `shared`: leading blocks it has in common with remembered branches it is not linked to. */
  | { kind: 'branch'; shared: number };

/**
 * Give a trace without harness signals branches, compactions and ends,
 * inferred from its block ids alone. Requests are taken in time order; for
 * each, against the recently used branches (BranchTable):
 *
 * 1. continuation: its prompt starts with the whole last prompt of an idle
 *    branch (the longest such prompt wins): same branch, same version;
 * 2. compaction: otherwise, if the branch it shares the longest prefix with
 *    is idle, its last prompt had >= `minCompactBlocks` blocks, and the shared
 *    prefix is < `compactKeepBelow` of them: a `compact` line (version + 1),
 *    then the request on that branch;
 * 3. otherwise a new branch, with its own agent (one branch per agent).
 *
 * "Idle": the branch's last request has completed under the nominal service
 * model (a branch issues its calls one after another). Links never rest on
 * *shared* blocks alone: once two branches that were not linked start with
 * the same blocks (a system prompt), those blocks are marked shared, and the
 * deepest block a request has in common with a branch must not be one of
 * them; otherwise every new conversation would extend or "compact" the
 * first one.
 *
 * Each branch ends after its last request (an `end` line right after it):
 * the importer sees the whole file, so replay releases a branch's KV
 * references as soon as its last request completes. Every request line gets
 * `inferred` (continuation, compaction or branch) so that `trace stats`
 * can count them.
 */
export function inferSignals(trace: Trace, options: InferOptions = {}): Trace {
  const opts = checkOptions(options);
  const requests = trace.events.map((e) => {
    if (e.type !== 'request' || e.branch !== undefined || e.agent !== undefined) {
      throw new InputError(`the trace already has harness signals (a ${e.type} line${e.type === 'request' ? ' with a branch' : ''}); inference is for traces without them`, { field: 'type' });
    }
    return e;
  });
  const order = requests.map((_, i) => i).sort((a, b) => requests[a]!.t - requests[b]!.t || a - b);

  const table = new BranchTable(opts.maxBranches);
  let nextBranch = 0;
  const placed: { request: RequestLine; branch: number; version: number; kind: Placement['kind'] }[] = [];
  for (const i of order) {
    const r = requests[i]!;
    const blocks = expandBlocks(r.blocks);
    const busyUntil = r.t + NOMINAL_BASE_SECONDS + r.output * NOMINAL_SECONDS_PER_OUTPUT_TOKEN;
    const p = place(table, blocks, r.t, opts);
    if (p.kind === 'branch') {
      table.markShared(blocks, p.shared);
      const id = nextBranch++;
      // A prompt with no full block can never be matched: no need to remember it.
      if (blocks.length > 0) table.add(id, blocks, busyUntil);
      placed.push({ request: r, branch: id, version: 0, kind: 'branch' });
    } else {
      if (p.kind === 'compaction') p.branch.version++;
      table.use(p.branch, blocks, busyUntil);
      placed.push({ request: r, branch: p.branch.id, version: p.branch.version, kind: p.kind });
    }
  }
  return { header: { ...trace.header, inference: opts }, events: buildEvents(placed) };
}

function place(table: BranchTable, blocks: readonly number[], t: number, opts: Required<InferOptions>): Placement {
  const idle = (b: RememberedBranch): boolean => b.busyUntil <= t + IDLE_SLACK_SECONDS;
  const k = table.prefixLength(blocks);
  // 1. The longest remembered prompt that this one starts with.
  for (let j = k; j >= 1; j--) {
    if (table.isShared(blocks[j - 1]!)) break; // shared blocks are prefix-closed: nothing shorter qualifies either
    const b = table.latestHolder(blocks[j - 1]!, j - 1, (c) => c.blocks.length === j && idle(c));
    if (b) return { kind: 'continuation', branch: b };
  }
  // 2. A short prefix of a long branch: the context was compacted (rewritten after its first blocks).
  if (k > 0 && !table.isShared(blocks[k - 1]!)) {
    const b = table.latestHolder(blocks[k - 1]!, k - 1, idle);
    if (b && b.blocks.length >= opts.minCompactBlocks && k < opts.compactKeepBelow * b.blocks.length) return { kind: 'compaction', branch: b };
  }
  return { kind: 'branch', shared: k };
}

/** Agent line before a branch's first request, compact line before a compaction, end line after its last request. */
function buildEvents(placed: { request: RequestLine; branch: number; version: number; kind: Placement['kind'] }[]): TraceEvent[] {
  const last = new Map<number, number>();
  placed.forEach((p, i) => last.set(p.branch, i));
  const events: TraceEvent[] = [];
  placed.forEach((p, i) => {
    const { request: r, branch } = p;
    if (p.kind === 'branch') events.push({ type: 'agent', agent: branch, branch, t: r.t } satisfies AgentLine);
    if (p.kind === 'compaction') events.push({ type: 'compact', branch, version: p.version, t: r.t } satisfies CompactLine);
    const { type, id, t, after, wait, input, output, blocks, produced } = r;
    events.push({ type, id, agent: branch, branch, version: p.version, t, after, wait, input, output, blocks, produced, inferred: p.kind } satisfies RequestLine);
    if (last.get(branch) === i) events.push({ type: 'end', branch, after: r.id, t: r.t } satisfies EndLine);
  });
  return events;
}

function checkOptions(options: InferOptions): Required<InferOptions> {
  const opts = { ...INFER_DEFAULTS, ...options };
  if (!Number.isSafeInteger(opts.maxBranches) || opts.maxBranches < 1) throw new InputError(`maxBranches must be a whole number >= 1, got ${opts.maxBranches}`, { field: 'maxBranches' });
  if (!(opts.compactKeepBelow > 0 && opts.compactKeepBelow <= 1)) throw new InputError(`compactKeepBelow must be in (0, 1], got ${opts.compactKeepBelow}`, { field: 'compactKeepBelow' });
  if (!Number.isSafeInteger(opts.minCompactBlocks) || opts.minCompactBlocks < 1) throw new InputError(`minCompactBlocks must be a whole number >= 1, got ${opts.minCompactBlocks}`, { field: 'minCompactBlocks' });
  return opts;
}
