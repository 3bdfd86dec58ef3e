import { InputError } from '../../common/errors.js';
import { buildSnapshotFromStrings, parseSchedCost, type Snapshot } from '../../evaluate/index.js';
import { openLineageStore, type LineageStore } from '../../store/index.js';
import { IslandSet } from '../archive/index.js';
import type { Mutator } from '../mutators/index.js';
import { EvaluatorPool } from '../pool/index.js';
import { buildMutator } from './build-mutator.js';
import type { EvolveConfig } from './config.js';
import { Evolver, type Starter } from './evolver.js';
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

/**
 * One offline evolution run over one snapshot. Each iteration works on one
 * island: a batch of candidates is proposed from the archive as it stood at
 * the start of the iteration (each slot with its own seeded Rng), mutated,
 * de-duplicated, evaluated in parallel, and then written in slot order with
 * the checkpoint in one transaction (see Evolver). The outcome is therefore
 * the same whatever order the workers finish in, and a killed run resumes
 * from its last committed iteration.
 */
export class EvolutionRun {
  private readonly evolver: Evolver;

  private constructor(
    readonly runId: number,
    private readonly config: EvolveConfig,
    private readonly store: LineageStore,
    private readonly pool: EvaluatorPool,
    mutator: Mutator,
    islands: IslandSet,
    private nextIteration: number,
    /** The seed policies, read once at open (a resumed run is past iteration 0). */
    private readonly seeds: readonly SeedPolicy[],
  ) {
    this.evolver = new Evolver(store, pool, mutator, islands, config, { runId });
  }

  /**
   * Start a new run (seeds evaluated as iteration 0) or resume the latest one
   * in the database. `snapshot`: replay this instead of the one the config's
   * strings describe (a scenario's, built by the caller).
   */
  static async open(config: EvolveConfig, dbPath: string, resume: boolean, options: { snapshot?: Snapshot } = {}): Promise<EvolutionRun> {
    // Everything that can reject the input comes before the database is
    // touched, so that bad flags leave no run (and no file) behind.
    const mutator = buildMutator(config);
    const schedCost = parseSchedCost(config.schedCost);
    const seeds = resume ? [] : loadSeeds(config.seedsDir);
    const snapshot = options.snapshot ?? buildSnapshotFromStrings({
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
      if (this.nextIteration === 0) {
        await this.evolver.seed(0, [
          ...this.seeds.map((s): Starter => ({ name: s.name, code: s.code, mutator: 'seed', editSummary: `seed ${s.name}` })),
          ...this.warmStartPolicies(),
        ]);
        this.nextIteration = 1;
      }
      while (this.nextIteration <= this.config.iterations) {
        if (hooks.signal?.aborted) {
          interrupted = true;
          break;
        }
        if (performance.now() > deadline) break;
        await this.evolver.iterate(this.nextIteration);
        this.nextIteration++;
        hooks.onIteration?.({
          iteration: this.nextIteration - 1,
          iterations: this.config.iterations,
          bestFitness: this.evolver.islands.bestOverall()?.fitness ?? null,
          evaluated: this.evolver.evaluated,
          failed: this.evolver.failed,
          evalsPerSecond: this.evolver.evaluated / Math.max(1e-9, (performance.now() - started) / 1000),
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
