import { Rng } from '../../common/rng.js';
import { InputError } from '../../common/errors.js';
import { codeHash, type CandidateRef, type LineageStore, type NewCandidate, type NewMigration } from '../../store/index.js';
import { FeatureSpace, type Candidate as ArchiveCandidate, type IslandSet, type IslandSetSnapshot } from '../archive/index.js';
import { ringMigrate } from '../migration/index.js';
import { MutationFailed, type MutationFailureReason, type Mutator } from '../mutators/index.js';
import type { TrajectoryBatches } from '../pool/index.js';
import type { CandidateScorer, ScoredOutcome } from './scorer.js';
import { islandForIteration, selectInspirations, selectParent } from '../selection/index.js';
import { duplicateRecord, evaluatedRecord, mutationFailureRecord, type Proposal } from './records.js';

/** How the population is worked: the selection and migration knobs of EvolveConfig. */
export interface EvolverSettings {
  seed: number;
  /** Candidates per iteration; default the pool's threads. */
  batch?: number;
  exploitRatio: number;
  exploreRatio: number;
  inspirations: number;
  migrationEvery: number;
}

/** A policy that enters the population without a mutation: a seed, a warm-start elite, the deployed policy. */
export interface Starter {
  name: string;
  code: string;
  /** What the lineage records as its origin: 'seed', 'warm-start', 'deployed'. */
  mutator: string;
  editSummary: string;
  /** Earlier candidates it is a copy of (a warm start re-scoring an elite on a new snapshot). */
  parents?: readonly number[];
}

/** One slot of a batch: a proposal to evaluate, or a failed mutation to record. */
export type Draft = { proposal: Proposal } | { failure: NewCandidate<CandidateRef> };

/**
 * A batch proposed and sent to the pool, not committed yet, as a checkpoint
 * keeps it (PENDING_KEY): its slots, and which were sent (the others are
 * failed mutations or duplicates of code already seen).
 */
export interface PendingBatch {
  iteration: number;
  drafts: Draft[];
  sent: boolean[];
}

/** The checkpoint key of the batch in flight beyond the committed iteration (null when none). */
export const PENDING_KEY = 'pending';

/** The checkpoint key of what the run's searches measured (SearchMemo; offline runs). */
export const SEARCH_MEMO_KEY = 'searchMemo';
/** Where a checkpoint written before tune had a memo kept the knob searches' (read on resume). */
export const KNOB_MEMO_KEY = 'knobMemo';

/** The checkpoint key of the population the next iteration is proposed from (pipelined runs; null otherwise). */
export const BASE_KEY = 'proposalBase';

/** The population `iteration` is proposed from in a pipelined run: as it stood at the start of the iteration before. */
export interface ProposalBase {
  iteration: number;
  islands: IslandSetSnapshot;
}

/** A batch in the pool: each sent slot's evaluation (null for the others). */
export interface InFlightIteration extends PendingBatch {
  seeding: boolean;
  outcomes: (Promise<ScoredOutcome> | null)[];
  /** The batch's task numbers in the trajectory reuse (mark before and after sending), published at its commit. */
  marks?: [number, number];
}

/** What one committed iteration wrote. */
export interface CommittedIteration {
  iteration: number;
  ids: number[];
  records: NewCandidate<CandidateRef>[];
}

/** Mutations attempted so far, by outcome: tells "the endpoint is down" from "the edits were bad". */
export interface MutationTally {
  ok: number;
  failed: Partial<Record<MutationFailureReason, number>>;
  /** The first message of each failure reason. */
  messages: Partial<Record<MutationFailureReason, string>>;
}

/**
 * How many recent improving edits are shown to the mutator as "recent
 * strategies": edits that entered the archive with a fitness strictly below
 * their parent's. An edit that only lands in an empty cell at its parent's
 * fitness (same behaviour, other features) is not progress.
 */
const RECENT_STRATEGIES = 8;

/**
 * The iteration machinery shared by an offline run (EvolutionRun) and a
 * cycle of the continuous mode (EvolutionCycle): propose a batch from the
 * archive as it stood at the start of the iteration (each slot with its own
 * seeded Rng), mutate, de-duplicate, evaluate in parallel in the pool, then
 * write the iteration in slot order with the checkpoint in one transaction.
 * iterate() does it all for one batch; proposeBatch, dispatch and commit are
 * the steps, for a caller that keeps two batches in the pool (EvolutionRun's
 * pipelined loop).
 *
 * With a signal, an iteration aborted before its commit writes nothing (as if
 * the process had died there): mutations in flight are cancelled, evaluations
 * in flight are awaited (they are bounded by the pool's wall limit) and dropped.
 */
export class Evolver {
  private readonly features = new FeatureSpace();
  private readonly recentStrategies: string[] = [];
  evaluated = 0;
  /** Wall time the pool's workers spent on the evaluations committed so far, ms (how busy they were: bench:evolve). */
  evaluationWallMs = 0;
  failed = 0;
  readonly mutations: MutationTally = { ok: 0, failed: {}, messages: {} };

  constructor(
    private readonly store: LineageStore,
    private readonly pool: CandidateScorer,
    private readonly mutator: Mutator,
    readonly islands: IslandSet,
    private readonly settings: EvolverSettings,
    private readonly where: {
      runId: number;
      /** The continuous-mode cycle every candidate row belongs to; null offline. */
      cycleId?: number | null;
      /** More keys for the checkpoint written with each iteration (besides `islands`). */
      extraState?: () => Record<string, unknown>;
    },
    /** The scorer's trajectory reuse, if any: what a batch leaves there is published when it is committed (TrajectoryReuse). */
    private readonly trajectories?: TrajectoryBatches,
  ) {}

  /**
   * Evaluate starters as one iteration; every one that evaluates cleanly is
   * offered to every island. A starter with the same code as an earlier one
   * is recorded as a duplicate, not evaluated. Undefined if aborted.
   */
  async seed(iteration: number, starters: readonly Starter[], signal?: AbortSignal): Promise<CommittedIteration | undefined> {
    const drafts = starters.map((s) => ({
      proposal: {
        island: 0,
        mutator: s.mutator,
        model: null,
        editSummary: s.editSummary,
        code: s.code,
        codeHash: codeHash(s.code),
        parents: [...(s.parents ?? [])],
        inspirations: [],
        promptTokens: null,
        completionTokens: null,
      } satisfies Proposal,
    }));
    return this.commit(this.dispatch(iteration, drafts, true), [], signal);
  }

  /** One iteration on the island whose turn it is; undefined if aborted before its commit. */
  async iterate(it: number, signal?: AbortSignal): Promise<CommittedIteration | undefined> {
    // Migrate first, on the archive as committed: every migrant already has its id.
    const migrations = this.migrate(it);
    const drafts = await this.proposeBatch(it, signal);
    if (!drafts) return undefined;
    return this.commit(this.dispatch(it, drafts), migrations, signal);
  }

  /** Ring migration of iteration `it` on the archive as committed now; its records are written with that iteration. */
  migrate(it: number): NewMigration[] {
    return ringMigrate(this.islands, it, { everyIterations: this.settings.migrationEvery }).map((m) => ({ fromIsland: m.fromIsland, toIsland: m.toIsland, candidate: Number(m.candidateId) }));
  }

  /**
   * The batch of iteration `it`, proposed from the archive as it stands now,
   * or from `from` (a population saved earlier: a resumed pipelined run);
   * undefined if aborted.
   */
  async proposeBatch(it: number, signal?: AbortSignal, from: IslandSet = this.islands): Promise<Draft[] | undefined> {
    const island = islandForIteration(it, from.count);
    const slots = this.settings.batch ?? this.pool.threads;
    const drafts = await Promise.all(Array.from({ length: slots }, (_, s) => this.propose(from, it, s, island, signal)));
    return signal?.aborted ? undefined : drafts;
  }

  /**
   * Send the unique proposals to the pool, in slot order, and return at once.
   * Their hashes are marked seen now (not on completion), so a batch
   * proposed while this one runs never evaluates the same code again.
   */
  dispatch(it: number, drafts: Draft[], seeding = false): InFlightIteration {
    const sent = drafts.map((d) => 'proposal' in d && this.islands.markSeen(d.proposal.codeHash));
    return this.send({ iteration: it, drafts, sent, seeding });
  }

  /** A batch restored from a checkpoint (PendingBatch), sent again as it was first sent: its hashes are already in the seen set. */
  resend(pending: PendingBatch): InFlightIteration {
    return this.send({ ...pending, seeding: false });
  }

  private send(batch: PendingBatch & { seeding: boolean }): InFlightIteration {
    const from = this.trajectories?.mark() ?? 0;
    const outcomes = batch.drafts.map((d, i) =>
      batch.sent[i] && 'proposal' in d ? this.pool.evaluate({ candidateId: -1, name: d.proposal.editSummary.slice(0, 60) || 'candidate', code: d.proposal.code, ...this.reuseFrom(d.proposal.parents) }) : null,
    );
    return { ...batch, outcomes, marks: [from, this.trajectories?.mark() ?? 0] };
  }

  /** The parent whose trajectory a child tries first (src/evolve/pool/trajectory-reuse.ts): the first parent, by its code hash. */
  private reuseFrom(parents: readonly CandidateRef[]): { reuseFrom?: string } {
    const first = parents[0];
    const parent = typeof first === 'number' ? this.store.getCandidate(first) : undefined;
    return parent ? { reuseFrom: parent.codeHash } : {};
  }

  private async propose(islands: IslandSet, it: number, slot: number, island: number, signal: AbortSignal | undefined): Promise<Draft> {
    const rng = Rng.derive(this.settings.seed, `iteration/${it}/slot/${slot}`);
    const choice = selectParent(islands, island, rng, { exploitRatio: this.settings.exploitRatio, exploreRatio: this.settings.exploreRatio });
    if (!choice) throw new InputError('every seed failed: the population is empty, nothing to mutate', { field: '--seeds' });
    const inspirations = selectInspirations(islands, island, choice.parent, rng, { count: this.settings.inspirations });
    const parentId = Number(choice.parent.id);
    const parent = this.store.getCandidate(parentId)!;
    const best = islands.bestOverall();
    const bestRow = best ? this.store.getCandidate(Number(best.id)) : undefined;
    const head = { island, parents: [parentId], inspirations: inspirations.map((e) => Number(e.id)) };
    try {
      const out = await this.mutator.mutate(
        {
          parent: { id: parent.id, code: parent.code, breakdown: parent.breakdown, metrics: parent.metrics, fitness: parent.fitness },
          children: this.store
            .children(parentId)
            .filter((c) => c.role === 'parent')
            .slice(-5)
            .map((c) => ({ id: c.candidate.id, editSummary: c.candidate.editSummary ?? '', fitness: c.candidate.fitness, breakdown: c.candidate.breakdown, failure: c.candidate.failureKind ?? undefined })),
          inspirations: inspirations.map((e) => {
            const row = this.store.getCandidate(Number(e.id))!;
            return { id: row.id, code: row.code, fitness: row.fitness, breakdown: row.breakdown };
          }),
          best: bestRow ? { id: bestRow.id, code: bestRow.code, fitness: bestRow.fitness, breakdown: bestRow.breakdown } : null,
          recentStrategies: [...this.recentStrategies],
          rng,
        },
        signal,
      );
      this.mutations.ok++;
      return {
        proposal: {
          ...head,
          mutator: out.mutator ?? this.mutator.name,
          model: out.model,
          editSummary: out.editSummary,
          code: out.code,
          codeHash: codeHash(out.code),
          promptTokens: out.promptTokens,
          completionTokens: out.completionTokens,
        },
      };
    } catch (error) {
      if (!(error instanceof MutationFailed)) throw error;
      this.mutations.failed[error.reason] = (this.mutations.failed[error.reason] ?? 0) + 1;
      this.mutations.messages[error.reason] ??= error.message;
      const cost = error.cost;
      return {
        failure: mutationFailureRecord(
          // The part of a mix that failed, when it says (the lineage tells which mutator failed and why).
          { ...head, mutator: error.mutator ?? this.mutator.name, model: cost?.model ?? null, promptTokens: cost?.promptTokens ?? null, completionTokens: cost?.completionTokens ?? null },
          error.reason,
          error.message,
        ),
      };
    }
  }

  /** Whether fitness is strictly lower (better) than the parent's; an edit without a stored parent is not compared. */
  private beatsParent(parent: CandidateRef | undefined, fitness: number): boolean {
    if (typeof parent !== 'number') return false;
    const before = this.store.getCandidate(parent)?.fitness;
    return typeof before === 'number' && fitness < before;
  }

  /**
   * Await a dispatched iteration and write it in slot order with the
   * checkpoint, in one transaction. Pipelined runs (EvolutionRun) also save
   * `carry`: the batch already proposed and sent for the following
   * iteration, so that a resumed run sends the same batch again, and the
   * population that following iteration is proposed from, so that a run
   * resumed with nothing in flight (it ended) proposes it as an unstopped
   * run would.
   */
  async commit(
    batch: InFlightIteration,
    migrations: NewMigration[],
    signal?: AbortSignal,
    carry: { next?: InFlightIteration; base?: ProposalBase } = {},
  ): Promise<CommittedIteration | undefined> {
    const { next, base } = carry;
    const { iteration: it, drafts, seeding } = batch;
    let outcomes: (ScoredOutcome | null)[];
    try {
      outcomes = await Promise.all(batch.outcomes.map((x) => x ?? Promise.resolve(null)));
    } finally {
      if (batch.marks) this.trajectories?.publish(...batch.marks);
    }
    if (signal?.aborted) return undefined;
    for (const o of outcomes) this.evaluationWallMs += o?.wallMs ?? 0;
    const cycle = this.where.cycleId ?? null;
    const records: NewCandidate<CandidateRef>[] = drafts.map((d, i) => {
      if (!('proposal' in d)) return { ...d.failure, cycle };
      const outcome = outcomes[i];
      if (!outcome) return { ...duplicateRecord(d.proposal), cycle };
      const cell = outcome.ok ? this.features.cellOf(outcome.evaluation.features as unknown as Record<string, number>) : null;
      return { ...evaluatedRecord(d.proposal, outcome, cell), cycle };
    });
    for (const r of records) {
      if (r.status === 'evaluated') this.evaluated++;
      else if (r.status === 'failed' && r.fitness !== undefined && r.fitness !== null) (this.evaluated++, this.failed++);
      else if (r.status === 'failed') this.failed++;
    }
    const ids = this.store.commitIteration(
      this.where.runId,
      it,
      records,
      (ids) => {
        records.forEach((r, i) => {
          if (r.status !== 'evaluated') return;
          const candidate: ArchiveCandidate = { id: String(ids[i]), codeHash: r.codeHash!, fitness: r.fitness!, features: r.features as Record<string, number> };
          if (seeding) {
            for (let k = 0; k < this.islands.count; k++) this.islands.add(k, candidate);
          } else {
            const outcome = this.islands.add(r.island, candidate);
            if (outcome !== 'rejected' && r.editSummary && this.beatsParent(r.parents?.[0], candidate.fitness)) {
              this.recentStrategies.push(r.editSummary);
              if (this.recentStrategies.length > RECENT_STRATEGIES) this.recentStrategies.shift();
            }
          }
        });
        const pending: PendingBatch | null = next ? { iteration: next.iteration, drafts: next.drafts, sent: next.sent } : null;
        return {
          islands: this.islands.toJSON() as unknown as Record<string, unknown>,
          [PENDING_KEY]: pending,
          [BASE_KEY]: (base ?? null) as unknown as Record<string, unknown> | null,
          ...this.where.extraState?.(),
        };
      },
      migrations,
    );
    return { iteration: it, ids, records };
  }
}
