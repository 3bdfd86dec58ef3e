import { InputError } from '../../common/errors.js';
import { parseSchedCost, type Snapshot } from '../../evaluate/index.js';
import { openLineageStore, type LineageStore } from '../../store/index.js';
import { IslandSet } from '../archive/index.js';
import { SearchMemo, type Mutator, type Tuner } from '../mutators/index.js';
import { EvaluatorPool, inBatch, trajectoryReuseFor, type EvaluatingPool, type TrajectoryReuse, type WorkerSetup } from '../pool/index.js';
import { buildMutator } from './build-mutator.js';
import type { EvolveConfig } from './config.js';
import { topElites } from './cycle.js';
import type { BackendFactory, EvaluationBackend } from './backend.js';
import { BASE_KEY, Evolver, KNOB_MEMO_KEY, SEARCH_MEMO_KEY, type PendingBatch, type ProposalBase, type Starter } from './evolver.js';
import { restoreCarried } from './pending.js';
import { Scorer, type CandidateScorer, type ScoredSnapshot } from './scorer.js';
import { loadSeeds, type SeedPolicy } from './seeds.js';
import { referencePolicy, snapshotLabel, stringsPlan, type SnapshotPlan } from './snapshot-plan.js';
import { summarizeRun, type EvolveSummary } from './summary.js';
import { Validator } from './validation.js';

export interface IterationProgress {
  iteration: number;
  iterations: number;
  bestFitness: number | null;
  /** The best seed's fitness (iteration 0), what the run is measured against. */
  seedsBestFitness: number | null;
  /** What fitness is (as in EvolveSummary). */
  fitnessUnit: 'seconds' | 'ratio';
  evaluated: number;
  failed: number;
  evalsPerSecond: number;
  /** Wall time the workers spent evaluating the candidates committed so far, ms. */
  evaluationWallMs: number;
}

export interface RunHooks {
  onIteration?: (p: IterationProgress) => void;
  /** Aborting ends the run after the iteration in progress is committed. */
  signal?: AbortSignal;
}

export interface OpenOptions {
  /** Replay this instead of the one the config's strings describe (a scenario's, built by the caller). */
  snapshot?: Snapshot;
  /** Every training and validation snapshot, built by the caller (scenarios); overrides `snapshot`. */
  plan?: SnapshotPlan;
  /** Where candidates are evaluated (default: a local EvaluatorPool; e.g. a QueueEvaluator, src/evolve/queue). */
  backend?: BackendFactory;
}

export type { EvaluationBackend } from './backend.js';

/**
 * One offline evolution run over one snapshot, or several (scenarios,
 * windows: the fitness is then the mean ratio to the reference policy, see
 * Scorer), with optional validation snapshots (see Validator). Each
 * iteration works on one island: a batch of candidates is proposed from the
 * archive as it stood at the start of the iteration (pipelined, the default:
 * of the iteration before, see runPipelined), each slot with its own seeded
 * Rng, mutated, de-duplicated, evaluated in parallel, and then written in
 * slot order with the checkpoint in one transaction (see Evolver). The
 * outcome is therefore the same whatever order the workers finish in, and a
 * killed run resumes from its last committed iteration.
 */
export class EvolutionRun {
  private readonly evolver: Evolver;

  private constructor(
    readonly runId: number,
    private readonly config: EvolveConfig,
    private readonly store: LineageStore,
    private readonly pool: EvaluationBackend,
    scorer: CandidateScorer,
    mutator: Mutator,
    islands: IslandSet,
    private nextIteration: number,
    /** The seed policies, read once at open (a resumed run is past iteration 0). */
    private readonly seeds: readonly SeedPolicy[],
    private readonly validator: Validator | undefined,
    /** Fitness is the mean ratio to the reference (several training snapshots), not T_total in seconds. */
    private readonly normalised: boolean,
    /** What a pipelined run's checkpoint carried beyond it (see runPipelined), used once on resume. */
    private carried: { pending?: PendingBatch; base?: ProposalBase },
    private readonly reuse: TrajectoryReuse | undefined,
    /** What the run's searches measured: kept with each checkpoint, so that a resumed run searches as the unstopped one. */
    searches: SearchMemo,
  ) {
    this.evolver = new Evolver(store, scorer, mutator, islands, config, { runId, extraState: () => ({ [SEARCH_MEMO_KEY]: searches.toJSON() }) }, reuse);
  }

  /** Start a new run (seeds evaluated as iteration 0) or resume the latest one in the database. */
  static async open(config: EvolveConfig, dbPath: string, resume: boolean, options: OpenOptions = {}): Promise<EvolutionRun> {
    // Everything that can reject the input comes before the database is
    // touched, so that bad flags leave no run (and no file) behind.
    const tuner: { current?: Tuner } = {};
    let searches = new SearchMemo();
    const mutator = buildMutator(config, { tuner: () => tuner.current, tuneReplays: config.tuneReplays, knobReplays: config.knobReplays });
    const schedCost = parseSchedCost(config.schedCost);
    const seeds = resume ? [] : loadSeeds(config.seedsDir);
    const plan = options.plan ?? (options.snapshot && config.windows === 1 && config.validateSeeds.length === 0 ? { train: [options.snapshot], validation: [] } : stringsPlan(config));
    const normalised = plan.train.length > 1 || plan.validation.length > 0;
    const reference = normalised ? referencePolicy(config) : undefined;
    const setup = {
      snapshot: plan.train[0]!,
      moreSnapshots: [...plan.train.slice(1), ...plan.validation],
      schedCost,
      sandbox: { cpuLimitMs: config.cpuLimitMs, memoryLimitMb: config.memoryLimitMb },
      wallLimitMs: config.candidateWallMs,
      threads: config.threads,
      reuseInSearch: config.trajectoryCacheMb > 0,
    };
    const pool = options.backend ? await options.backend(setup) : new EvaluatorPool(setup);
    let store: LineageStore | undefined;
    try {
      const all = [...plan.train, ...plan.validation];
      // Children try their parent's trajectory first, then any kept one with their answers (TrajectoryReuse).
      const reuse = trajectoryReuseFor(pool, config.trajectoryCacheMb, schedCost, !options.backend);
      // Through the reuse, so that the seed with the reference's code (evolving-infra by default) reuses these replays.
      const refs = reference ? await inBatch(reuse, () => referenceTotals(reuse ?? pool, reference, all)) : [];
      const scored = (from: number, n: number): ScoredSnapshot[] => Array.from({ length: n }, (_, i) => ({ index: from + i, label: snapshotLabel(all[from + i]!), reference: refs[from + i]! }));
      const train = scored(0, plan.train.length);
      // One training snapshot: the fitness stays T_total in seconds (the same order as the ratio, and what the lineage always held).
      const scorer: CandidateScorer = plan.train.length > 1 ? new Scorer(reuse ?? pool, train) : (reuse ?? pool);
      tuner.current = {
        // A search from a candidate first tries the candidate's own trajectories (most of its points answer as it does).
        // A search reads the points earlier searches of its kind measured on its parent, and leaves what it measures (SearchMemo).
        tune: async (request) => {
          const result = await pool.tune(searches.withKnown(request), reuse?.keptFor(request.code, request.snapshots));
          searches.record(request, result);
          return result;
        },
        objective: () => ({ snapshots: train.map((s) => s.index), references: plan.train.length > 1 ? train.map((s) => s.reference) : [null] }),
      };
      const validator = plan.validation.length > 0 ? new Validator(reuse ?? pool, scored(plan.train.length, plan.validation.length)) : undefined;
      store = openLineageStore(dbPath, { create: !resume });
      let runId: number;
      let islands: IslandSet;
      let next: number;
      let carried: { pending?: PendingBatch; base?: ProposalBase } = {};
      if (resume) {
        const run = store.latestRun();
        if (!run) throw new InputError('no run to resume in this database', { file: dbPath, field: '--resume' });
        const checkpoint = store.loadCheckpoint(run.id);
        runId = run.id;
        store.reopenRun(run.id);
        islands = checkpoint?.state.islands ? IslandSet.restore(checkpoint.state.islands) : new IslandSet({ islands: config.islands });
        next = checkpoint ? checkpoint.iteration + 1 : 0;
        carried = restoreCarried(checkpoint?.state);
        const key = checkpoint?.state[SEARCH_MEMO_KEY] === undefined && checkpoint?.state[KNOB_MEMO_KEY] !== undefined ? KNOB_MEMO_KEY : SEARCH_MEMO_KEY;
        searches = SearchMemo.restore(checkpoint?.state[key], `checkpoint.${key}`);
      } else {
        runId = store.createRun({ config, seed: config.seed });
        islands = new IslandSet({ islands: config.islands });
        next = 0;
      }
      return new EvolutionRun(runId, config, store, pool, scorer, mutator, islands, next, seeds, validator, plan.train.length > 1, carried, reuse, searches);
    } catch (error) {
      store?.close();
      await pool.close();
      throw error;
    }
  }

  async run(hooks: RunHooks = {}): Promise<EvolveSummary> {
    const started = performance.now();
    const deadline = this.config.maxMinutes !== undefined ? started + this.config.maxMinutes * 60_000 : Infinity;
    let interrupted = false;
    let seedsBest: { fitness: number | null } | undefined;
    try {
      if (this.nextIteration === 0) {
        await this.evolver.seed(0, [
          ...this.seeds.map((s): Starter => ({ name: s.name, code: s.code, mutator: 'seed', editSummary: `seed ${s.name}` })),
          ...this.warmStartPolicies(),
        ]);
        this.nextIteration = 1;
      }
      const stopping = () => {
        if (hooks.signal?.aborted) interrupted = true;
        return interrupted || performance.now() > deadline;
      };
      const progress = (it: number) => {
        // The seeds are fixed once iteration 0 is committed: read their best once.
        seedsBest ??= { fitness: this.store.runCandidateStats(this.runId).seedsBest?.fitness ?? null };
        hooks.onIteration?.({
          iteration: it,
          iterations: this.config.iterations,
          bestFitness: this.evolver.islands.bestOverall()?.fitness ?? null,
          seedsBestFitness: seedsBest.fitness,
          fitnessUnit: this.normalised ? 'ratio' : 'seconds',
          evaluated: this.evolver.evaluated,
          failed: this.evolver.failed,
          evalsPerSecond: this.evolver.evaluated / Math.max(1e-9, (performance.now() - started) / 1000),
          evaluationWallMs: this.evolver.evaluationWallMs,
        });
      };
      if (this.config.pipeline) await this.runPipelined(stopping, progress);
      else {
        while (this.nextIteration <= this.config.iterations && !stopping()) {
          const it = this.nextIteration;
          await this.evolver.iterate(it);
          this.nextIteration++;
          if (it % this.config.validateEvery === 0) await this.validate(it);
          progress(it);
        }
      }
      // Every starter that ran cleanly is validated (the best seed on validation is what the run must beat), here
      // with the last elites rather than after iteration 0: validation never steers the search (Validator), so a
      // time budget (--max-minutes) goes to the search, and the candidates validated are the same.
      await this.validate(Math.max(0, this.nextIteration - 1), this.store.starters(this.runId));
      this.store.finishRun(this.runId, interrupted ? 'interrupted' : 'finished');
      const summary = summarizeRun(this.store, this.runId, this.nextIteration - 1, this.evolver.islands, { validated: this.validator !== undefined, normalised: this.normalised });
      return this.reuse ? { ...summary, trajectories: { ...this.reuse.counts } } : summary;
    } finally {
      await this.pool.close();
    }
  }

  close(): void {
    this.store.close();
  }

  /**
   * The iterations with two batches in the pool (docs/evolution.md,
   * "Pipelined iterations"): iteration j + 1 is proposed and sent from the
   * population as it stood at the start of iteration j, before j is
   * committed, so a worker that finishes its part of j takes a candidate of
   * j + 1 instead of waiting for the slowest. Everything else keeps its
   * order: j is committed in slot order, then validated, then j + 1's
   * migration runs on the archive as committed. Deterministic whatever
   * order the workers finish in, and each checkpoint keeps the batch in
   * flight, so a killed run resumes by sending that same batch again.
   */
  private async runPipelined(stopping: () => boolean, progress: (it: number) => void): Promise<void> {
    const last = this.config.iterations;
    if (this.nextIteration > last || stopping()) return;
    const { pending, base } = this.carried;
    this.carried = {};
    const first = this.nextIteration;
    let migrations = this.evolver.migrate(first);
    // Where a resumed run left off: the batch it had in flight, else the population the first iteration is proposed from.
    const from = base?.iteration === first ? IslandSet.restore(base.islands, `checkpoint.${BASE_KEY}`) : undefined;
    let current = pending?.iteration === first ? this.evolver.resend(pending) : this.evolver.dispatch(first, (await this.evolver.proposeBatch(first, undefined, from))!);
    for (;;) {
      const it = this.nextIteration;
      // The population now is the one at the start of `it`: what it + 1 is proposed from, now or after a resume.
      const nextBase = { iteration: it + 1, islands: this.evolver.islands.toJSON() };
      const next = it < last && !stopping() ? this.evolver.dispatch(it + 1, (await this.evolver.proposeBatch(it + 1))!) : undefined;
      await this.evolver.commit(current, migrations, undefined, { next, base: nextBase });
      this.nextIteration++;
      if (it % this.config.validateEvery === 0) await this.validate(it);
      progress(it);
      if (!next) return;
      migrations = this.evolver.migrate(it + 1);
      current = next;
    }
  }

  /** The best distinct elites (and `also`) not validated yet, scored on the validation snapshots. */
  private async validate(iteration: number, also: readonly number[] = []): Promise<void> {
    const validator = this.validator;
    if (!validator) return;
    const elites = topElites(this.evolver.islands, this.config.validateTop).map((e) => Number(e.id));
    await inBatch(this.reuse, () => validator.validate(this.store, this.runId, iteration, [...also, ...elites]));
  }

  private warmStartPolicies(): Starter[] {
    if (!this.config.warmStart) return [];
    const other = openLineageStore(this.config.warmStart, { readonly: true });
    try {
      const run = other.latestRun();
      if (!run) throw new InputError('no run in the warm-start database', { file: this.config.warmStart, field: '--warm-start' });
      return other.best(run.id, this.config.warmStartCount).map((c) => ({
        name: `warm-${c.id}`,
        code: other.getCandidate(c.id)!.code,
        mutator: 'warm-start',
        editSummary: `warm start from ${this.config.warmStart} candidate ${c.id} (T_total ${c.fitness?.toFixed(2)} s there)`,
      }));
    } finally {
      other.close();
    }
  }
}

/** The reference policy's T_total on every snapshot; it must run cleanly on each (it is what fitness is relative to). */
async function referenceTotals(pool: EvaluatingPool, reference: { file: string; code: string }, snapshots: readonly Snapshot[]): Promise<number[]> {
  const outcomes = await Promise.all(snapshots.map((_, i) => pool.evaluate({ candidateId: 0, name: 'reference', code: reference.code, snapshot: i })));
  return outcomes.map((o, i) => {
    const label = snapshotLabel(snapshots[i]!);
    if (!o.ok) throw new InputError(`the reference policy failed on ${label} (${o.kind}: ${o.message})`, { file: reference.file, field: '--reference' });
    const failure = o.evaluation.failures[0];
    if (failure) throw new InputError(`the reference policy failed on ${label} (${failure.kind}: ${failure.firstMessage})`, { file: reference.file, field: '--reference' });
    return o.evaluation.fitness.tTotal;
  });
}
