import { formatSchedCost, type Evaluation, type SchedCost } from '../evaluate/index.js';
import type { LoadedScenario } from '../scenario/index.js';
import { round } from '../sim/index.js';
import type { OracleCache } from './cache.js';
import { currentCodeVersion } from './code-version.js';
import { cachedOracles, computeOracles, oracleCandidates, type OracleInput } from './oracle.js';
import type { OracleResult } from './oracle-result.js';
import type { SuiteRunner } from './tasks.js';
import { scenarioCluster, scenarioSource } from './snapshot-source.js';
import { SUITE_CAP_FACTOR } from './split-run.js';
import type { StaticBest } from './window-oracle.js';

export interface PolicyRow {
  policy: string;
  /** The evaluator's throughput (req/s over its scored interval). */
  throughput: number;
  ttftP95: number;
  e2eMean: number;
  /** The evaluator's fitness on the scenario, s. */
  tTotal: number;
  /** Role changes in the scored interval. */
  transitions: number;
  /** Throughput against the best static split, % (positive: better than it). */
  vsStaticPct: number;
  /** Gap to the window oracle, % of the oracle's throughput (positive: below it). */
  oracleGapPct: number;
  finalSplit: string;
  failures: number;
  drained: boolean;
}

export interface ScenarioReport {
  name: string;
  seed: number;
  contentHash: string;
  oracle: {
    candidates: number;
    staticBest: StaticBest;
    window: { throughput: number; windowSeconds: number; windows: OracleResult['window']['windows'] };
  };
  policies: PolicyRow[];
}

export interface SuiteReport {
  schedCost: string;
  codeVersion: string;
  scenarios: ScenarioReport[];
}

export interface SuiteOptions {
  scenarios: readonly LoadedScenario[];
  policies: readonly { name: string; source: string }[];
  /** Every scenario at this seed (default: each scenario's own). */
  seed?: number;
  schedCost: SchedCost;
  /** The local SuitePool or a queue (QueueSuiteRunner). */
  pool: SuiteRunner;
  cache?: OracleCache;
  codeVersion?: string;
  /** Called once with done = 0 before the runs start, then as each run (static or policy) finishes; `total` counts only runs not answered by the cache. */
  onProgress?: (done: number, total: number, note: string) => void;
}

/**
 * Every policy on every scenario, with both oracles of each scenario. All
 * runs are queued on the pool at once (scenario by scenario, so workers
 * reuse the snapshot they built, the biggest scenarios first), and results
 * are placed by position.
 * The cache hits are returned beside the report, not in it, so that a cold
 * and a warm run print the same report.
 */
export async function runSuite(options: SuiteOptions): Promise<{ report: SuiteReport; oraclesFromCache: number }> {
  const codeVersion = options.codeVersion ?? currentCodeVersion();
  const plans = options.scenarios.map((s) => {
    const seed = options.seed ?? s.run.seed;
    const input: OracleInput = { name: s.name, seed, contentHash: s.contentHash, source: scenarioSource(s, seed), ...scenarioCluster(s) };
    const cached = cachedOracles(input, { cache: options.cache, codeVersion });
    return { input, cached, candidates: cached ? 0 : oracleCandidates(input).length };
  });
  const total = plans.reduce((n, p) => n + p.candidates + options.policies.length, 0);
  let done = 0;
  const tick = (note: string) => options.onProgress?.(++done, total, note);
  options.onProgress?.(0, total, '');
  // Queue the scenarios with the most work first (simulated minutes x runs) so that the
  // last runs to finish are short ones; the report keeps the given order.
  const weight = (i: number) => runMinutes(options.scenarios[i]!) * (plans[i]!.candidates + options.policies.length);
  const order = plans.map((_, i) => i).sort((a, b) => weight(b) - weight(a) || a - b);
  const work: Promise<ScenarioReport>[] = [];
  for (const i of order) work[i] = scenarioWork(plans[i]!);
  const scenarios = await Promise.all(work);
  return { report: { schedCost: formatSchedCost(options.schedCost), codeVersion, scenarios }, oraclesFromCache: plans.filter((p) => p.cached).length };

  async function scenarioWork(plan: (typeof plans)[number]): Promise<ScenarioReport> {
    const oracle = plan.cached
      ? Promise.resolve(plan.cached)
      : computeOracles(plan.input, { pool: options.pool, cache: options.cache, codeVersion, onRun: (r) => tick(`${plan.input.name} ${r.split}`) }).then((o) => o.result);
    const evaluations = options.policies.map(async (policy) => {
      const e = await options.pool.run({ kind: 'policy', source: plan.input.source, policy, schedCost: options.schedCost, capFactor: SUITE_CAP_FACTOR });
      tick(`${plan.input.name} ${policy.name}`);
      return e;
    });
    // Awaited together: a failure of either is handled at once, never left unhandled.
    const [o, e] = await Promise.all([oracle, Promise.all(evaluations)]);
    return scenarioReport(plan.input, o, e);
  }
}

const runMinutes = (s: LoadedScenario) => s.run.warmupMinutes + s.run.minutes;

function scenarioReport(input: OracleInput, oracle: OracleResult, evaluations: Evaluation[]): ScenarioReport {
  const staticThroughput = oracle.staticBest.throughput;
  const windowThroughput = oracle.window.throughput;
  return {
    name: input.name,
    seed: input.seed,
    contentHash: input.contentHash,
    oracle: {
      candidates: oracle.candidates,
      staticBest: oracle.staticBest,
      window: { throughput: windowThroughput, windowSeconds: oracle.window.windowSeconds, windows: oracle.window.windows },
    },
    policies: evaluations.map((e) => ({
      policy: e.policy,
      throughput: e.metrics.throughput,
      ttftP95: e.metrics.ttft.p95,
      e2eMean: e.metrics.e2e.mean,
      tTotal: round(e.fitness.tTotal, 3),
      transitions: e.metrics.transitions.count,
      vsStaticPct: pct(e.metrics.throughput / staticThroughput - 1),
      oracleGapPct: pct(1 - e.metrics.throughput / windowThroughput),
      finalSplit: e.finalSplit,
      failures: e.failures.reduce((n, f) => n + f.count, 0),
      drained: e.drained,
    })),
  };
}

const pct = (x: number) => (Number.isFinite(x) ? round(x * 100, 2) : 0);
