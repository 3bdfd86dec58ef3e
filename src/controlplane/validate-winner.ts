import type { SchedCost, Snapshot } from '../evaluate/index.js';
import type { BackendFactory } from '../evolve/engine/index.js';
import { EvaluatorPool, type EvalOutcome } from '../evolve/pool/index.js';
import type { LineageStore, NewValidation } from '../store/index.js';
import type { ControlPlaneConfig } from './config.js';
import { describeSnapshot } from './snapshot-info.js';
import type { ValidationVerdict } from './types.js';

/** The window a cycle validates on: the one that ended where its training window's scored part starts. */
export function validationRequest(config: Pick<ControlPlaneConfig, 'windowMinutes' | 'warmupMinutes'>): { windowMinutes: number; warmupMinutes: number; endMinutesAgo: number } {
  return { windowMinutes: config.windowMinutes, warmupMinutes: config.warmupMinutes, endMinutesAgo: config.windowMinutes };
}

/** Minutes of history the data plane must have recorded before a cycle can run: warm-up, window, and the validation window before it. */
export function historyMinutes(config: Pick<ControlPlaneConfig, 'windowMinutes' | 'warmupMinutes' | 'validateWindow'>): number {
  return config.warmupMinutes + config.windowMinutes * (config.validateWindow ? 2 : 1);
}


interface Contender {
  candidateId: number;
  code: string;
}

/**
 * Score the cycle's best and the deployed policy on the validation window, in
 * worker threads of their own or on the cycle's queue workers (the data
 * plane's thread keeps serving either way), and
 * record both in the lineage's validations (fitness: T_total / the deployed
 * policy's T_total there). The best passes when it beats the deployed policy
 * by the margin there too.
 */
export async function validateWinner(input: {
  store: LineageStore;
  runId: number;
  iteration: number;
  snapshot: Snapshot;
  best: Contender;
  deployed: Contender;
  config: ControlPlaneConfig;
  schedCost: SchedCost;
  /** Where the cycle's evaluations went (serve --queue: the workers); default a local pool. */
  backend?: BackendFactory;
}): Promise<ValidationVerdict> {
  const { config } = input;
  const setup = {
    snapshot: input.snapshot,
    schedCost: input.schedCost,
    sandbox: { cpuLimitMs: config.cpuLimitMs, memoryLimitMb: config.memoryLimitMb },
    wallLimitMs: config.candidateWallMs,
    threads: Math.min(2, config.threads),
  };
  const pool = input.backend ? await input.backend(setup) : await EvaluatorPool.open(setup);
  let outcomes: EvalOutcome[];
  try {
    outcomes = await Promise.all(
      [input.deployed, input.best].map((c) => pool.evaluate({ candidateId: c.candidateId, name: `validate #${c.candidateId}`, code: c.code })),
    );
  } finally {
    await pool.close();
  }
  const [deployed, best] = outcomes.map(tTotalOf) as [Scored, Scored];
  const label = String(describeSnapshot(input.snapshot).label);
  const row = (c: Contender, s: Scored): NewValidation => {
    const ratio = s.tTotal !== null && deployed.tTotal !== null ? s.tTotal / deployed.tTotal : null;
    return {
      candidate: c.candidateId,
      fitness: ratio,
      // No ratio without the deployed policy's T_total: say why (a row needs a fitness or a failure).
      failure: s.failure ?? (ratio === null ? 'the deployed policy could not be scored on this window' : null),
      snapshots: s.tTotal !== null && ratio !== null ? [{ label, tTotal: s.tTotal, ratio, throughput: s.throughput, failures: s.failures }] : [],
    };
  };
  input.store.saveValidations(input.runId, input.iteration, [row(input.deployed, deployed), row(input.best, best)]);
  if (deployed.tTotal === null) return { passed: false, best: best.tTotal, deployed: null, why: `the deployed policy could not be scored on the previous window (${deployed.failure})` };
  if (best.tTotal === null) return { passed: false, best: null, deployed: deployed.tTotal, why: `it failed on the previous window (${best.failure})` };
  const gain = (deployed.tTotal - best.tTotal) / deployed.tTotal;
  if (!(best.tTotal < deployed.tTotal * (1 - config.margin))) {
    return { passed: false, best: best.tTotal, deployed: deployed.tTotal, why: `on the previous window ${best.tTotal.toFixed(2)} s against ${deployed.tTotal.toFixed(2)} s (${pctSigned(-gain)}), not below by the margin` };
  }
  return { passed: true, best: best.tTotal, deployed: deployed.tTotal, gain };
}

interface Scored {
  tTotal: number | null;
  throughput: number;
  failures: number;
  failure: string | null;
}

function tTotalOf(o: EvalOutcome): Scored {
  if (!o.ok) return { tTotal: null, throughput: 0, failures: 1, failure: `${o.kind}: ${o.message}` };
  const e = o.evaluation;
  const failures = e.failures.reduce((n, f) => n + f.count, 0);
  // A policy that failed in the replay is not trusted there (the same rule the cycle's own scoring applies).
  const first = e.failures[0];
  return first ? { tTotal: null, throughput: e.metrics.throughput, failures, failure: `${first.kind}: ${first.firstMessage}` } : { tTotal: e.fitness.tTotal, throughput: e.metrics.throughput, failures, failure: null };
}

function pctSigned(fraction: number): string {
  return `${fraction >= 0 ? '+' : ''}${(fraction * 100).toFixed(1)}%`;
}
