import type { Command } from 'commander';
import { runScenario, parseScenario, type SimResult, type Scenario } from '../sim/index.js';
import { addClusterOptions, resolveCluster, type ClusterFlags } from './cluster-options.js';
import type { LearningResult } from '../sim/learning/index.js';
import type { CliIO } from './io.js';
import { floatOption } from './options.js';
import { progressBar } from './progress.js';
import { CLUSTER_FLAG_MAP, requireWorkloadOrScenario, scenarioWithFlags } from './scenario-option.js';
import { renderTable } from './table.js';

interface SimulateFlags extends ClusterFlags {
  arrivalRate?: number;
  timeScale: number;
  slices: boolean;
  json: boolean;
}

export function registerSimulateCommand(program: Command, io: CliIO): void {
  const cmd = program
    .command('simulate')
    .description('Serve a workload on the simulated cluster with a fixed split and print the section 3 metrics');
  addClusterOptions(cmd, { warmupMin: 30, minutes: 60 })
    .option('--arrival-rate <per-s>', 'open loop: new agents per second instead of a closed loop', floatOption('--arrival-rate', 1e-9))
    .option('--time-scale <x>', 'trace replays: multiply recorded times (0.5 = twice as fast)', floatOption('--time-scale', 1e-9), 1)
    .option('--slices', 'also print the per-minute slices (table output)', false)
    .option('--json', 'print one JSON object {scenario?, config, metrics, slices, learning, simSeconds, wallSeconds}', false)
    .action((flags: SimulateFlags, command: Command) => {
      const loaded = flags.scenario ? scenarioWithFlags(flags.scenario, command, { ...flags }, CLUSTER_FLAG_MAP).scenario : undefined;
      const scenario = loaded ? loaded.run : runFromFlags(flags);
      const total = (scenario.warmupMinutes + scenario.minutes) * 60;
      const bar = progressBar(io, 'simulate', total);
      const started = Date.now();
      const result = runScenario(scenario, { onProgress: (t) => bar.update(t, `${(t / 60).toFixed(0)}/${(total / 60).toFixed(0)} sim min`) });
      bar.finish();
      const wallSeconds = (Date.now() - started) / 1000;
      if (flags.json) {
        io.out(JSON.stringify({ ...(loaded ? { scenario: loaded.name } : {}), config: scenario, metrics: result.metrics, slices: result.slices, learning: result.learning, simSeconds: result.simSeconds, wallSeconds }) + '\n');
      } else {
        io.out((loaded ? `scenario ${loaded.name}\n` : '') + formatResult(scenario, result, wallSeconds, flags.slices));
      }
    });
}

/** The run config from flags alone (no --scenario). */
function runFromFlags(flags: SimulateFlags): Scenario {
  requireWorkloadOrScenario(flags);
  const cluster = resolveCluster(flags);
  return parseScenario({
    workload: flags.workload,
    agents: flags.agents,
    arrivalRate: flags.arrivalRate,
    nodes: flags.nodes,
    nodeKinds: cluster.nodeKinds,
    split: flags.split,
    mechanics: cluster.mechanics,
    warmupMinutes: flags.warmupMin,
    minutes: flags.minutes,
    seed: flags.seed,
    timeScale: flags.timeScale,
    membership: cluster.membership,
  });
}

function formatResult(scenario: Scenario, r: SimResult, wallSeconds: number, withSlices: boolean): string {
  const m = r.metrics;
  const mech = scenario.mechanics;
  const head =
    `workload ${scenario.workload}${scenario.agents ? ` (${scenario.agents} agents)` : ''}, ${scenario.nodes} nodes, split ${scenario.split} -> ${r.finalSplit}, seed ${scenario.seed}\n` +
    `mechanics: transition=${mech.transition} pool=${mech.pool} fetch=${mech.fetch} eviction=${mech.eviction} prefill=${mech.prefillRouting} decode=${mech.decodeRouting} decodeKv=${mech.decodeKv} affinityView=${mech.affinityView} fetchOverlap=${mech.fetchOverlap} decodeOutput=${mech.decodeOutput} decodeSlots=${mech.decodeSlots}\n` +
    `scored minutes ${scenario.warmupMinutes} to ${scenario.warmupMinutes + scenario.minutes}; ${r.events} events in ${wallSeconds.toFixed(2)} s wall (${(r.simSeconds / Math.max(wallSeconds, 1e-9)).toFixed(0)}x real time)\n` +
    `${formatModelLine(r.learning)}\n\n`;
  const rows: (string | number)[][] = [
    ['throughput (req/s)', m.throughput.toFixed(3)],
    ['TTFT mean / P50 / P95 (s)', `${m.ttft.mean.toFixed(2)} / ${m.ttft.p50.toFixed(2)} / ${m.ttft.p95.toFixed(2)}`],
    ['E2E mean / P50 / P95 (s)', `${m.e2e.mean.toFixed(2)} / ${m.e2e.p50.toFixed(2)} / ${m.e2e.p95.toFixed(2)}`],
    ['TPOT mean (ms)', m.tpotMs.toFixed(2)],
    ['prefill queue wait mean / P50 / P95 (s)', `${m.prefillQueueWait.mean.toFixed(3)} / ${m.prefillQueueWait.p50.toFixed(3)} / ${m.prefillQueueWait.p95.toFixed(3)}`],
    ['most-loaded / average prefill wait', m.prefillMostLoadedOverAvg.toFixed(2)],
    ['prefill GPU idle (%)', m.prefillIdlePct.toFixed(1)],
    ['KV hit rate actual / ideal (%)', `${(m.kvHitRate.actual * 100).toFixed(1)} / ${(m.kvHitRate.ideal * 100).toFixed(1)}`],
    ['lost KV reuse (%)', m.lostKvReusePct.toFixed(2)],
    ['uncached prompt tokens per request', m.uncachedTokensPerRequest.toFixed(0)],
    ['transitions (count, mean s)', `${m.transitions.count}, ${m.transitions.meanSeconds.toFixed(1)}`],
    ['requests arrived / completed (scored) / in flight', `${m.requestsArrived} / ${m.requestsCompleted} / ${m.requestsInFlight}`],
  ];
  let text = head + renderTable(rows, ['metric', 'value']);
  if (withSlices) {
    text +=
      '\n' +
      renderTable(
        r.slices.map((s) => [s.start / 60, s.scored ? 'yes' : 'no', s.split, s.throughput.toFixed(2), s.ttftMean.toFixed(2), s.ttftP95.toFixed(2), s.e2eMean.toFixed(2), (s.kvHitRate * 100).toFixed(1)]),
        ['minute', 'scored', 'split', 'req/s', 'TTFT', 'TTFT P95', 'E2E', 'KV hit %'],
      );
  }
  return text;
}

/** One line on the engine's iteration-time model: when the online fit converged and its error against the noise-free truth. */
export function formatModelLine(l: LearningResult): string {
  if (l.mode === 'given') return 'model: given (no online learning)';
  const pct = (v: number | null): string => (v === null ? 'n/a' : `${v.toFixed(1)}%`);
  const kinds = Object.entries(l.byKind);
  const late = l.convergenceSeconds !== null && l.convergedAtSeconds !== null && l.convergedAtSeconds - l.convergenceSeconds >= 1;
  const converged =
    l.convergedAtSeconds !== null
      ? `converged at ${l.convergedAtSeconds.toFixed(0)} s${late ? `, ${l.convergenceSeconds!.toFixed(0)} s after the first iteration` : ''}`
      : `not converged (${kinds.filter(([, k]) => k.convergedAtSeconds === null).map(([name]) => name).join(', ')})`;
  const perKind = kinds.length > 1 ? `; ${kinds.map(([name, k]) => `${name} ${k.convergedAtSeconds === null ? 'not converged' : `${k.convergedAtSeconds.toFixed(0)} s, ${pct(k.mape.mean)}`}`).join(', ')}` : '';
  return (
    `model: online fit ${converged} (${l.samples.prefill} prefill + ${l.samples.decode} decode samples); ` +
    `MAPE vs truth prefill single ${pct(l.mape.prefillSingle)}, batch ${pct(l.mape.prefillBatch)}, decode ${pct(l.mape.decode)}, mean ${pct(l.mape.mean)}${perKind}`
  );
}
