import type { SchedCost, Snapshot } from '../evaluate/index.js';
import { runEvolutionCycle, type BackendFactory, type CommittedIteration, type CycleResult, type Evolver, type SeedPolicy } from '../evolve/engine/index.js';
import { parseMutatorSpec, type Mutator, type MutationFailureReason } from '../evolve/mutators/index.js';
import type { LineageStore, NewCandidate, CandidateRef } from '../store/index.js';
import type { ControlPlaneConfig } from './config.js';
import { rolledBackHashes } from './deployments.js';
import { oneLine } from '../common/one-line.js';
import { classifyFailure, CycleFailure } from './failure.js';
import { checkSnapshot, describeSnapshot } from './snapshot-info.js';
import { validateWinner, validationRequest } from './validate-winner.js';
import { buildStarters } from './starters.js';
import { elitesOf, loadControlState, saveSimSeconds, saveWarmStart, type ControlState } from './state.js';
import type { CycleOutcome, CycleProgress, CycleStatus, DeployedProvider, SimClock, SnapshotProvider, StagedPolicy, Stager, ValidationVerdict } from './types.js';

/** Everything one cycle needs, owned by the ControlPlane. */
export interface CycleContext {
  store: LineageStore;
  runId: number;
  config: ControlPlaneConfig;
  schedCost: SchedCost;
  mutator: Mutator;
  seeds: readonly SeedPolicy[];
  snapshot: SnapshotProvider;
  deployed: DeployedProvider;
  stage: Stager;
  clock: SimClock;
  /** Updated in place: next iteration number and warm start. */
  state: ControlState;
  log: (line: string) => void;
  /** After every committed iteration of the cycle: where it stands (for a status line). */
  onProgress?: (progress: CycleProgress) => void;
  /** Where the cycle's candidates are evaluated (default: a local pool of config.threads; serve --queue: a QueueEvaluator). */
  backend?: BackendFactory;
}

/** Mutation failures that mean the mutator's endpoint is unusable, not that an edit was bad. */
const ENDPOINT_REASONS: readonly MutationFailureReason[] = ['endpoint', 'timeout', 'rate-limit', 'server-error'];

/**
 * One cycle: snapshot -> starters (deployed policy + warm start or seeds) ->
 * evolution in worker threads under the time limit -> compare the best with
 * the deployed policy on the same snapshot -> stage it if it wins by the
 * margin -> record. Never throws: every failure becomes a 'failed' cycle
 * (recorded with its reason when the database allows) and an outcome.
 */
export async function executeCycle(ctx: CycleContext, signal: AbortSignal): Promise<CycleOutcome> {
  const wallStart = performance.now();
  const startedAt = readClock(ctx.clock, 0);
  const { store, runId, config } = ctx;
  let cycleId: number | null = null;
  let best: CycleOutcome['best'] = null;
  let deployed: CycleOutcome['deployed'] = null;
  let result: CycleResult | undefined;
  let validated: ValidationVerdict | undefined;
  /** Whether the last finish() wrote the cycle's end. */
  let endRecorded = false;
  const finish = (status: CycleStatus, reason: string, extra: Partial<CycleOutcome> = {}): CycleOutcome => {
    const endedAt = Math.max(startedAt, readClock(ctx.clock, startedAt));
    const outcome: CycleOutcome = {
      cycleId,
      status,
      best,
      deployed,
      deployedOnSnapshot: deployed?.tTotal ?? null,
      staged: false,
      winner: null,
      reason,
      failure: null,
      iterations: result?.iterations ?? 0,
      evaluated: result?.evaluated ?? 0,
      startedAt,
      endedAt,
      wallSeconds: (performance.now() - wallStart) / 1000,
      ...extra,
    };
    endRecorded = false;
    if (cycleId !== null) {
      try {
        const id = cycleId;
        store.transaction(() => {
          store.finishCycle(id, {
            endedAt,
            status,
            winner: outcome.winner?.candidateId ?? null,
            reason,
            best: best ? { candidate: best.candidateId, fitness: best.tTotal } : null,
            deployed: deployed ? { candidate: deployed.candidateId, fitness: deployed.tTotal } : null,
          });
          saveSimSeconds(store, runId, endedAt);
        });
        endRecorded = true;
      } catch (error) {
        // The database is unavailable: the outcome still tells the caller; a
        // resume marks the row (left 'running') interrupted.
        ctx.log(`cycle ${cycleId}: could not record its end: ${classifyFailure(error).message}`);
      }
    }
    return outcome;
  };

  try {
    // 1. The snapshot, then the cycle row (written even when there is no snapshot, to record why).
    // With validation, the window before the training one, taken at the same moment.
    let snapshot: Snapshot | undefined;
    let validation: Snapshot | undefined;
    let snapshotError: unknown;
    let which = 'snapshot';
    try {
      snapshot = checkSnapshot(await ctx.snapshot({ windowMinutes: config.windowMinutes, warmupMinutes: config.warmupMinutes }));
      which = 'validation window';
      if (config.validateWindow) validation = checkSnapshot(await ctx.snapshot(validationRequest(config)));
    } catch (error) {
      snapshotError = error;
    }
    cycleId = store.insertCycle({
      run: runId,
      label: snapshot?.label ?? 'no snapshot',
      snapshot: snapshot ? { ...describeSnapshot(snapshot), ...(validation ? { validation: describeSnapshot(validation) } : {}) } : null,
      startedAt,
    });
    if (snapshotError !== undefined) {
      const c = classifyFailure(snapshotError);
      throw new CycleFailure('snapshot', `no ${which}: ${c.message}`, c.kind === 'infrastructure', { cause: snapshotError });
    }
    if (signal.aborted) return finish('interrupted', 'stopped before the cycle started');

    // 2. Starters.
    const policy = ctx.deployed();
    const starters = buildStarters(store, runId, policy, ctx.state.warmStart, ctx.seeds);
    const fromWarm = starters.filter((s) => s.mutator === 'warm-start').length;
    ctx.log(`cycle ${cycleId}: ${snapshot!.label}, ${starters.length} starters (deployed ${policy.name}, ${fromWarm > 0 ? `${fromWarm} elites of the last cycle` : 'seeds'})`);

    // 3. Evolve, in the pool's worker threads. With only the llm mutator, an
    // endpoint that fails every mutation ends the cycle early instead of
    // burning its iterations; in a mix the other mutators carry on.
    const endpointDown = new AbortController();
    const llmOnly = parseMutatorSpec(config.mutator).every((p) => p.name === 'llm' || p.weight === 0);
    let endpointMessage = '';
    result = await runEvolutionCycle({
      store,
      runId,
      cycleId,
      snapshot: snapshot!,
      starters,
      firstIteration: ctx.state.nextIteration,
      mutator: ctx.mutator,
      settings: {
        seed: config.seed,
        batch: config.batch,
        exploitRatio: config.exploitRatio,
        exploreRatio: config.exploreRatio,
        inspirations: config.inspirations,
        migrationEvery: config.migrationEvery,
        islands: config.islands,
        threads: config.threads,
        iterations: config.iterationsPerCycle,
        maxMs: config.cycleMaxMinutes * 60_000,
        schedCost: ctx.schedCost,
        candidateWallMs: config.candidateWallMs,
        cpuLimitMs: config.cpuLimitMs,
        memoryLimitMb: config.memoryLimitMb,
        trajectoryCacheMb: config.trajectoryCacheMb,
      },
      signal: AbortSignal.any([signal, endpointDown.signal]),
      backend: ctx.backend,
      onIteration: (committed: CommittedIteration, evolver: Evolver) => {
        const top = evolver.islands.bestOverall();
        ctx.onProgress?.({ cycleId: cycleId!, iteration: committed.iteration, bestCandidate: top ? Number(top.id) : null, bestFitness: top ? top.fitness : null });
        const tally = evolver.mutations;
        const down = ENDPOINT_REASONS.filter((r) => (tally.failed[r] ?? 0) > 0);
        if (llmOnly && tally.ok === 0 && down.length > 0) {
          endpointMessage = tally.messages[down[0]!] ?? down[0]!;
          endpointDown.abort();
        }
      },
    });
    ctx.state.nextIteration = result.nextIteration;
    const top = elitesOf(result.islands, config.warmStartCount, cycleId);
    if (top.length > 0) {
      ctx.state.warmStart = top;
      saveWarmStart(store, runId, top);
    }

    // 4. What the starters say: the deployed policy's score, an empty population.
    if (result.starters) {
      const { ids, records } = result.starters;
      deployed = { candidateId: ids[0]!, tTotal: records[0]!.fitness ?? null };
    }
    const elite = result.islands.bestOverall();
    if (elite) best = { candidateId: Number(elite.id), tTotal: elite.fitness };
    if (result.status === 'interrupted' && endpointDown.signal.aborted && !signal.aborted) {
      throw new CycleFailure('infrastructure', `the mutator's endpoint failed every mutation: ${oneLine(endpointMessage)}`, true);
    }
    if (result.status === 'interrupted') return finish('interrupted', 'stopped during the cycle');
    if (!elite) {
      throw new CycleFailure('candidates', `every starting candidate failed on this snapshot${firstFailure(result.starters?.records ?? [])}`, starterCrashed(result.starters?.records ?? []));
    }
    if (deployed?.tTotal === null || deployed === null) {
      const record = result.starters?.records[0];
      throw new CycleFailure('candidates', `the deployed policy could not be scored on this snapshot${firstFailure(record ? [record] : [])}`, starterCrashed(record ? [record] : []));
    }

    // 5. Compare on the same snapshot, stage a winner.
    const status: CycleStatus = result.status === 'timed_out' ? 'timed_out' : 'finished';
    const endpointFailures = ENDPOINT_REASONS.reduce((n, r) => n + (result!.mutations.failed[r] ?? 0), 0);
    const note = endpointFailures > 0 ? ` (the LLM endpoint failed ${endpointFailures} mutation(s): ${oneLine(ENDPOINT_REASONS.map((r) => result!.mutations.messages[r]).find((m) => m) ?? '', 160)})` : '';
    const bar = deployed.tTotal * (1 - config.margin);
    const summary = `best candidate ${best!.candidateId} T_total ${best!.tTotal.toFixed(2)} s, deployed ${deployed.tTotal.toFixed(2)} s`;
    if (best!.candidateId === deployed.candidateId) return finish(status, `${summary}: the deployed policy is the best, nothing staged${note}`);
    if (!beatsDeployed(best!.tTotal, deployed.tTotal, config.margin)) return finish(status, `${summary}: not below ${bar.toFixed(2)} s (margin ${pct(config.margin)}), nothing staged${note}`);
    const row = store.getCandidate(best!.candidateId)!;
    if (rolledBackHashes(store, runId).has(row.codeHash)) return finish(status, `${summary}: it was deployed and rolled back before, not staged again${note}`);
    const gain = (deployed.tTotal - best!.tTotal) / deployed.tTotal;
    let why = `${summary}: ${pct(gain)} lower (margin ${pct(config.margin)})`;
    if (validation) {
      const verdict = await validateWinner({
        store,
        runId,
        iteration: result.nextIteration - 1,
        snapshot: validation,
        best: { candidateId: row.id, code: row.code },
        deployed: { candidateId: deployed.candidateId, code: store.getCandidate(deployed.candidateId)!.code },
        config,
        schedCost: ctx.schedCost,
        backend: ctx.backend,
      });
      if (signal.aborted) return finish('interrupted', `${why}; stopped while validating`);
      if (!verdict.passed) return finish(status, `${why}, but ${verdict.why}: nothing staged${note}`, { validation: verdict });
      why += `; on the previous window ${verdict.best.toFixed(2)} s against ${verdict.deployed.toFixed(2)} s, ${pct(verdict.gain)} lower`;
      validated = verdict;
    }
    const winner: StagedPolicy = { code: row.code, candidateId: row.id, name: `cycle-${cycleId}-candidate-${row.id}`, fitness: best!.tTotal, cycle: cycleId, reason: why };
    // Record the cycle and its winner first, then stage: a process killed in
    // between leaves a recorded winner that was never deployed, never a
    // deployed policy whose cycle says it was interrupted.
    const recorded = finish(status, `${why}, staged${note}`, { staged: true, winner, ...(validated ? { validation: validated } : {}) });
    if (!endRecorded) {
      // Unrecorded, the winner is not staged: the lineage could not say where it came from.
      return { ...recorded, status: 'failed', staged: false, winner: null, reason: `${why}; not staged: the cycle's end could not be recorded`, failure: { kind: 'infrastructure', retryable: true } };
    }
    try {
      await ctx.stage(config.stagingDir, winner);
    } catch (error) {
      const message = `could not stage candidate ${row.id} in ${config.stagingDir}: ${classifyFailure(error).message}`;
      ctx.log(`cycle ${cycleId} failed (infrastructure, will retry): ${message}`);
      // Rewrites the cycle's row: failed, no winner.
      return finish('failed', message, { failure: { kind: 'infrastructure', retryable: true } });
    }
    return recorded;
  } catch (error) {
    const c = classifyFailure(error);
    if (result === undefined) {
      // The evolution itself threw (a database write, the pool): re-read where the run's checkpoint is.
      try {
        ctx.state.nextIteration = loadControlState(store, runId, config.warmStartCount).nextIteration;
      } catch {
        // still unavailable: the next cycle fails the same way and retries
      }
    }
    if (signal.aborted) return finish('interrupted', `stopped during the cycle (${c.message})`);
    ctx.log(`cycle ${cycleId ?? '-'} failed (${c.kind}${c.retryable ? ', will retry' : ''}): ${c.message}`);
    return finish('failed', c.message, { failure: { kind: c.kind, retryable: c.retryable } });
  }
}

/**
 * The staging decision: strictly below the deployed policy's T_total less the
 * margin. An equal T_total is no improvement, margin 0 included.
 */
export function beatsDeployed(candidate: number, deployed: number, margin: number): boolean {
  return Number.isFinite(candidate) && Number.isFinite(deployed) && candidate < deployed * (1 - margin);
}

function readClock(clock: SimClock, fallback: number): number {
  try {
    const t = clock();
    return Number.isFinite(t) ? t : fallback;
  } catch {
    return fallback;
  }
}

function pct(fraction: number): string {
  return `${(fraction * 100).toFixed(fraction < 0.1 ? 1 : 0)}%`;
}

function firstFailure(records: readonly NewCandidate<CandidateRef>[]): string {
  const f = records.find((r) => r.failureKind);
  return f ? ` (${f.failureKind}: ${oneLine(f.failureMessage ?? '', 200)})` : '';
}

/**
 * A starter that crashed in the pool points at the workers or the machine, not
 * at the policy. A `timeout` is the candidate overrunning its own budget (the
 * pool rejects it from inside its worker): the policy's doing, not retried.
 */
function starterCrashed(records: readonly NewCandidate<CandidateRef>[]): boolean {
  return records.some((r) => r.failureKind === 'crash') && records.every((r) => r.fitness == null);
}
