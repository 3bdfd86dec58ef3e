import { Rng } from '../../common/rng.js';
import { InputError } from '../../common/errors.js';
import { buildSnapshotFromStrings, parseSchedCost } from '../../evaluate/index.js';
import { codeHash, openLineageStore, type CandidateRef, type LineageStore, type NewCandidate, type NewMigration } from '../../store/index.js';
import { FeatureSpace, IslandSet, type Candidate as ArchiveCandidate } from '../archive/index.js';
import { ringMigrate } from '../migration/index.js';
import { MutationFailed, type Mutator } from '../mutators/index.js';
import { EvaluatorPool, type EvalOutcome } from '../pool/index.js';
import { islandForIteration, selectInspirations, selectParent } from '../selection/index.js';
import { buildMutator } from './build-mutator.js';
import type { EvolveConfig } from './config.js';
import { duplicateRecord, evaluatedRecord, mutationFailureRecord, type Proposal } from './records.js';
import { loadSeeds, type SeedPolicy } from './seeds.js';
import { summarizeRun, type EvolveSummary } from './summary.js';

export interface IterationProgress {
  iteration: number;
  iterations: number;
  bestFitness: number | null;
  evaluated: number;
  failed: number;
  evalsPerSecond: number;
}

export interface RunHooks {
  onIteration?: (p: IterationProgress) => void;
  /** Aborting ends the run after the iteration in progress is committed. */
  signal?: AbortSignal;
}

/** How many recent improving edits are shown to the mutator as "recent strategies". */
const RECENT_STRATEGIES = 8;

/**
 * One offline evolution run over one snapshot. Each iteration works on one
 * island: a batch of candidates is proposed from the archive as it stood at
 * the start of the iteration (each slot with its own seeded Rng), mutated,
 * de-duplicated, evaluated in parallel, and then written in slot order with
 * the checkpoint in one transaction. The outcome is therefore the same
 * whatever order the workers finish in, and a killed run resumes from its
 * last committed iteration.
 */
export class EvolutionRun {
  private readonly features = new FeatureSpace();
  private readonly recentStrategies: string[] = [];
  private evaluated = 0;
  private failed = 0;

  private constructor(
    readonly runId: number,
    private readonly config: EvolveConfig,
    private readonly store: LineageStore,
    private readonly pool: EvaluatorPool,
    private readonly mutator: Mutator,
    private islands: IslandSet,
    private nextIteration: number,
    /** The seed policies, read once at open (a resumed run is past iteration 0). */
    private readonly seeds: readonly SeedPolicy[],
  ) {}

  /** Start a new run (seeds evaluated as iteration 0) or resume the latest one in the database. */
  static async open(config: EvolveConfig, dbPath: string, resume: boolean): Promise<EvolutionRun> {
    // Everything that can reject the input comes before the database is
    // touched, so that bad flags leave no run (and no file) behind.
    const mutator = buildMutator(config);
    const schedCost = parseSchedCost(config.schedCost);
    const seeds = resume ? [] : loadSeeds(config.seedsDir);
    const snapshot = buildSnapshotFromStrings({
      workload: config.workload,
      agents: config.agents,
      nodes: config.nodes,
      split: config.split,
      nodeKinds: config.nodeKinds,
      mechanics: config.mechanics,
      warmupMinutes: config.warmupMinutes,
      minutes: config.windowMinutes,
      seed: config.seed,
    });
    const store = openLineageStore(dbPath, { create: !resume });
    try {
      let runId: number;
      let islands: IslandSet;
      let next: number;
      if (resume) {
        const run = store.latestRun();
        if (!run) throw new InputError('no run to resume in this database', { file: dbPath, field: '--resume' });
        const checkpoint = store.loadCheckpoint(run.id);
        runId = run.id;
        store.reopenRun(run.id);
        islands = checkpoint?.state.islands ? IslandSet.restore(checkpoint.state.islands) : new IslandSet({ islands: config.islands });
        next = checkpoint ? checkpoint.iteration + 1 : 0;
      } else {
        runId = store.createRun({ config, seed: config.seed });
        islands = new IslandSet({ islands: config.islands });
        next = 0;
      }
      const pool = new EvaluatorPool({
        snapshot,
        schedCost,
        sandbox: { cpuLimitMs: config.cpuLimitMs, memoryLimitMb: config.memoryLimitMb },
        wallLimitMs: config.candidateWallMs,
        threads: config.threads,
      });
      return new EvolutionRun(runId, config, store, pool, mutator, islands, next, seeds);
    } catch (error) {
      store.close();
      throw error;
    }
  }

  async run(hooks: RunHooks = {}): Promise<EvolveSummary> {
    const started = performance.now();
    const deadline = this.config.maxMinutes !== undefined ? started + this.config.maxMinutes * 60_000 : Infinity;
    let interrupted = false;
    try {
      if (this.nextIteration === 0) await this.seedIteration();
      while (this.nextIteration <= this.config.iterations) {
        if (hooks.signal?.aborted) {
          interrupted = true;
          break;
        }
        if (performance.now() > deadline) break;
        await this.iteration(this.nextIteration);
        hooks.onIteration?.({
          iteration: this.nextIteration - 1,
          iterations: this.config.iterations,
          bestFitness: this.islands.bestOverall()?.fitness ?? null,
          evaluated: this.evaluated,
          failed: this.failed,
          evalsPerSecond: this.evaluated / Math.max(1e-9, (performance.now() - started) / 1000),
        });
      }
      this.store.finishRun(this.runId, interrupted ? 'interrupted' : 'finished');
      return summarizeRun(this.store, this.runId, this.nextIteration - 1);
    } finally {
      await this.pool.close();
    }
  }

  close(): void {
    this.store.close();
  }

  // ---- iteration 0: the seeds (or a warm start) ---------------------------------

  private async seedIteration(): Promise<void> {
    const starters = [
      ...this.seeds.map((s) => ({ name: s.name, code: s.code, mutator: 'seed', summary: `seed ${s.name}` })),
      ...this.warmStartPolicies(),
    ];
    const proposals: Proposal[] = starters.map((s) => ({
      island: 0,
      mutator: s.mutator,
      model: null,
      editSummary: s.summary,
      code: s.code,
      codeHash: codeHash(s.code),
      parents: [],
      inspirations: [],
      promptTokens: null,
      completionTokens: null,
    }));
    await this.evaluateAndCommit(0, proposals.map((p) => ({ proposal: p })), [], true);
  }

  private warmStartPolicies(): { name: string; code: string; mutator: string; summary: string }[] {
    if (!this.config.warmStart) return [];
    const other = openLineageStore(this.config.warmStart, { readonly: true });
    try {
      const run = other.latestRun();
      if (!run) throw new InputError('no run in the warm-start database', { file: this.config.warmStart, field: '--warm-start' });
      return other.best(run.id, this.config.warmStartCount).map((c) => ({
        name: `warm-${c.id}`,
        code: other.getCandidate(c.id)!.code,
        mutator: 'warm-start',
        summary: `warm start from ${this.config.warmStart} candidate ${c.id} (T_total ${c.fitness?.toFixed(2)} s there)`,
      }));
    } finally {
      other.close();
    }
  }

  // ---- iterations 1..N -------------------------------------------------------------

  private async iteration(it: number): Promise<void> {
    // Migrate first, on the archive as committed: every migrant already has its id.
    const migrations = ringMigrate(this.islands, it, { everyIterations: this.config.migrationEvery });
    const island = islandForIteration(it, this.islands.count);
    const slots = this.config.batch ?? this.pool.threads;
    const drafts = await Promise.all(Array.from({ length: slots }, (_, s) => this.propose(it, s, island)));
    const migrationRecords: NewMigration[] = migrations.map((m) => ({ fromIsland: m.fromIsland, toIsland: m.toIsland, candidate: Number(m.candidateId) }));
    await this.evaluateAndCommit(it, drafts, migrationRecords, false);
  }

  private async propose(it: number, slot: number, island: number): Promise<{ proposal: Proposal } | { failure: NewCandidate<CandidateRef> }> {
    const rng = Rng.derive(this.config.seed, `iteration/${it}/slot/${slot}`);
    const choice = selectParent(this.islands, island, rng, { exploitRatio: this.config.exploitRatio, exploreRatio: this.config.exploreRatio });
    if (!choice) throw new InputError('every seed failed: the population is empty, nothing to mutate', { field: '--seeds' });
    const inspirations = selectInspirations(this.islands, island, choice.parent, rng, { count: this.config.inspirations });
    const parentId = Number(choice.parent.id);
    const parent = this.store.getCandidate(parentId)!;
    const best = this.islands.bestOverall();
    const bestRow = best ? this.store.getCandidate(Number(best.id)) : undefined;
    const head = { island, parents: [parentId], inspirations: inspirations.map((e) => Number(e.id)) };
    try {
      const out = await this.mutator.mutate({
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
      });
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
      const cost = error.cost;
      return {
        failure: mutationFailureRecord(
          { ...head, mutator: this.mutator.name, model: cost?.model ?? null, promptTokens: cost?.promptTokens ?? null, completionTokens: cost?.completionTokens ?? null },
          error.reason,
          error.message,
        ),
      };
    }
  }

  /** Evaluate the unique proposals in parallel, then write the whole iteration in slot order. */
  private async evaluateAndCommit(
    it: number,
    drafts: ({ proposal: Proposal } | { failure: NewCandidate<CandidateRef> })[],
    migrations: NewMigration[],
    seeding: boolean,
  ): Promise<void> {
    const pending: (Promise<EvalOutcome> | null)[] = drafts.map((d) => {
      if (!('proposal' in d)) return null;
      const p = d.proposal;
      if (!this.islands.markSeen(p.codeHash)) return null; // duplicate: not evaluated twice
      return this.pool.evaluate({ candidateId: -1, name: p.editSummary.slice(0, 60) || 'candidate', code: p.code });
    });
    const outcomes = await Promise.all(pending.map((x) => x ?? Promise.resolve(null)));
    const records: NewCandidate<CandidateRef>[] = drafts.map((d, i) => {
      if (!('proposal' in d)) return d.failure;
      const outcome = outcomes[i];
      if (!outcome) return duplicateRecord(d.proposal);
      const cell = outcome.ok ? this.features.cellOf(outcome.evaluation.features as unknown as Record<string, number>) : null;
      return evaluatedRecord(d.proposal, outcome, cell);
    });
    for (const r of records) {
      if (r.status === 'evaluated') this.evaluated++;
      else if (r.status === 'failed' && r.fitness !== undefined && r.fitness !== null) (this.evaluated++, this.failed++);
      else if (r.status === 'failed') this.failed++;
    }
    this.store.commitIteration(
      this.runId,
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
            if (outcome !== 'rejected' && r.editSummary) {
              this.recentStrategies.push(r.editSummary);
              if (this.recentStrategies.length > RECENT_STRATEGIES) this.recentStrategies.shift();
            }
          }
        });
        return { islands: this.islands.toJSON() as unknown as Record<string, unknown> };
      },
      migrations,
    );
    this.nextIteration = it + 1;
  }
}
