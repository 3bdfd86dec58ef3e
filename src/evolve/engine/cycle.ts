import type { Snapshot, SchedCost } from '../../evaluate/index.js';
import type { LineageStore } from '../../store/index.js';
import { compareElites, IslandSet, type Elite } from '../archive/index.js';
import type { Mutator } from '../mutators/index.js';
import { EvaluatorPool, trajectoryReuseFor } from '../pool/index.js';
import type { BackendFactory } from './backend.js';
import { Evolver, type CommittedIteration, type EvolverSettings, type MutationTally, type Starter } from './evolver.js';

/** How one cycle evolves: the population knobs, its budgets and the evaluator's limits. */
export interface CycleSettings extends EvolverSettings {
  islands: number;
  /** Worker threads of the cycle's evaluator pool (default: the machine's cores). */
  threads?: number;
  /** Iterations after the starters; the cycle may end earlier on its time limit. */
  iterations: number;
  /** Wall-clock limit of the whole cycle in ms; the starters are always scored in full. */
  maxMs?: number;
  schedCost: SchedCost;
  candidateWallMs: number;
  cpuLimitMs: number;
  memoryLimitMb: number;
  /** Memory for recent evaluations' trajectories (MB; 0 or unset: off; see EvolveConfig.trajectoryCacheMb). Local pool only. */
  trajectoryCacheMb?: number;
}

export interface CycleInput {
  store: LineageStore;
  runId: number;
  /** Every candidate row written is tagged with this cycle. */
  cycleId: number;
  snapshot: Snapshot;
  /** Scored first, as one iteration, each offered to every island (in order; a repeated code is recorded as a duplicate). */
  starters: readonly Starter[];
  /** The run's next iteration number: iterations are numbered across the cycles of a run. */
  firstIteration: number;
  mutator: Mutator;
  settings: CycleSettings;
  /** Aborting ends the cycle: mutations in flight are cancelled, the iteration in flight is not written. */
  signal?: AbortSignal;
  /** After each committed iteration (the starters' included). */
  onIteration?: (committed: CommittedIteration, evolver: Evolver) => void;
  /** Where the cycle's candidates are evaluated (default: a local EvaluatorPool; e.g. a QueueEvaluator, src/evolve/queue). */
  backend?: BackendFactory;
}

export type CycleEndStatus = 'finished' | 'timed_out' | 'interrupted';

export interface CycleResult {
  status: CycleEndStatus;
  /** The run's next iteration number after this cycle. */
  nextIteration: number;
  /** The starters' iteration as committed (ids and records in starter order); undefined if interrupted before. */
  starters: CommittedIteration | undefined;
  /** The population at the end: every elite was scored on this cycle's snapshot. */
  islands: IslandSet;
  /** Iterations committed after the starters. */
  iterations: number;
  evaluated: number;
  failed: number;
  mutations: MutationTally;
  wallMs: number;
}

/**
 * One evolution cycle of the continuous mode, on one snapshot, inside a run
 * that spans many cycles: its own evaluator pool (its workers hold the
 * snapshot) and its own islands (fitness on another snapshot does not
 * compare), starting from the starters the caller chose (seeds, the deployed
 * policy, the previous cycle's elites). Rows carry the cycle id; iterations
 * continue the run's numbering, so the run's checkpoint stays contiguous.
 *
 * Nothing here knows what a snapshot contains or what is deployed: the
 * caller (the control plane) decides what to start from and what to do
 * with the result.
 */
export async function runEvolutionCycle(input: CycleInput): Promise<CycleResult> {
  const started = performance.now();
  const { settings, signal } = input;
  const deadline = settings.maxMs !== undefined ? started + settings.maxMs : Infinity;
  const islands = new IslandSet({ islands: settings.islands });
  // Packed off the caller's thread in small steps (a large window blocks it for 50-100 ms otherwise).
  const setup = {
    snapshot: input.snapshot,
    schedCost: settings.schedCost,
    sandbox: { cpuLimitMs: settings.cpuLimitMs, memoryLimitMb: settings.memoryLimitMb },
    wallLimitMs: settings.candidateWallMs,
    threads: settings.threads,
    reuseInSearch: (settings.trajectoryCacheMb ?? 0) > 0,
  };
  const pool = input.backend ? await input.backend(setup) : await EvaluatorPool.open(setup);
  const reuse = trajectoryReuseFor(pool, settings.trajectoryCacheMb ?? 0, settings.schedCost, !input.backend);
  const evolver = new Evolver(
    input.store,
    reuse ?? pool,
    input.mutator,
    islands,
    settings,
    { runId: input.runId, cycleId: input.cycleId, extraState: () => ({ cycle: input.cycleId }) },
    reuse,
  );
  // The time limit aborts mutations and evaluations in flight (not the starters).
  const timer = new AbortController();
  const timeout = Number.isFinite(deadline) ? setTimeout(() => timer.abort(), Math.max(0, deadline - performance.now())) : undefined;
  const either = signal ? AbortSignal.any([signal, timer.signal]) : timer.signal;
  let next = input.firstIteration;
  let starters: CommittedIteration | undefined;
  let iterations = 0;
  let status: CycleEndStatus = 'finished';
  try {
    starters = await evolver.seed(next, input.starters, signal);
    if (!starters) status = 'interrupted';
    else {
      next++;
      input.onIteration?.(starters, evolver);
      while (iterations < settings.iterations) {
        if (signal?.aborted) {
          status = 'interrupted';
          break;
        }
        if (timer.signal.aborted || performance.now() >= deadline) {
          status = 'timed_out';
          break;
        }
        if (islands.bestOverall() === undefined) break; // nothing to mutate: the caller sees an empty population
        const committed = await evolver.iterate(next, either);
        if (!committed) {
          status = signal?.aborted ? 'interrupted' : 'timed_out';
          break;
        }
        next++;
        iterations++;
        input.onIteration?.(committed, evolver);
      }
    }
  } finally {
    if (timeout) clearTimeout(timeout);
    await pool.close();
  }
  return {
    status,
    nextIteration: next,
    starters,
    islands,
    iterations,
    evaluated: evolver.evaluated,
    failed: evolver.failed,
    mutations: evolver.mutations,
    wallMs: performance.now() - started,
  };
}

/**
 * The best `n` distinct elites across all islands (an elite that migrated
 * sits on several islands; it counts once), best first: the warm start of the
 * next cycle.
 */
export function topElites(islands: IslandSet, n: number): Elite[] {
  const byId = new Map<string, Elite>();
  for (const archive of islands.all()) for (const e of archive.elites()) if (!byId.has(e.id)) byId.set(e.id, e);
  return [...byId.values()].sort(compareElites).slice(0, n);
}
