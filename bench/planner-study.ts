/**
 * The planner study (docs/planner-study.md): each baseline seed on the run
 * where the planner it is named after was published, beside the best static
 * split of the same run, in two harnesses:
 *
 *   live    the simulator's closed loop of agents (as `simulate`, the policy
 *           consulted every 5 s): how the published study ran its planners,
 *           and what the window oracle is defined on;
 *   replay  the evaluator's trace replay run to drain (as the `replay`
 *           command and the suite): T_total's harness.
 *
 * Scheduling cost is zero in both, so every figure is deterministic.
 *
 * Run: npm run bench:planners [-- --only shifting,steady-cc,restart-cc,arrow-cc,arrow-bursty,others-shifting] [-- --json]
 * (others-shifting, greedy and lookahead on shifting, runs only when named)
 */
import { readFileSync } from 'node:fs';
import { createSimulator, parseMechanics, parseScenario, rolesFor, type ScenarioInput, type SimResult } from '../src/sim/index.js';
import { PolicySandbox } from '../src/sandbox/index.js';
import { buildSnapshot, evaluatePolicy, replaySnapshot, sandboxHook } from '../src/evaluate/index.js';
import { expandNodeKinds } from '../src/sim/index.js';
import { generateTrace, loadWorkloadPreset } from '../src/workload/index.js';
import { packageRoot } from '../src/common/package-root.js';
import { benchFlags } from './args.js';

interface Figures {
  throughput: number;
  ttftP95: number;
  /** Transitions started in the scored period. */
  transitions: number;
  finalSplit: string;
  /** Time-weighted mean prefill count over the scored period. */
  meanPrefill: number;
  maxPrefill: number;
}

const seedFile = (name: string): string => `${packageRoot()}/seeds/${name}.js`;
const prefillOf = (split: string): number => Number(/^(\d+)P/.exec(split)![1]);

function prefillStats(timeline: { at: number; split: string }[], from: number, to: number): { mean: number; max: number } {
  let weighted = 0;
  let max = 0;
  for (let i = 0; i < timeline.length; i++) {
    const start = Math.max(from, timeline[i]!.at);
    const end = Math.min(to, i + 1 < timeline.length ? timeline[i + 1]!.at : to);
    if (end <= start) continue;
    weighted += prefillOf(timeline[i]!.split) * (end - start);
    max = Math.max(max, prefillOf(timeline[i]!.split));
  }
  return { mean: to > from ? weighted / (to - from) : 0, max };
}

function figures(r: Pick<SimResult, 'metrics' | 'finalSplit' | 'splitTimeline'>, from: number, to: number): Figures {
  const p = prefillStats(r.splitTimeline, from, to);
  return { throughput: r.metrics.throughput, ttftP95: r.metrics.ttft.p95, transitions: r.metrics.transitions.count, finalSplit: r.finalSplit, meanPrefill: p.mean, maxPrefill: p.max };
}

/** A seed (or, with null, the split given) in the live closed loop. */
function live(seed: string | null, input: ScenarioInput): Figures {
  const scenario = parseScenario(input);
  const sandbox = seed === null ? undefined : PolicySandbox.create(readFileSync(seedFile(seed), 'utf8'), { seed: scenario.seed, name: seed });
  try {
    const r = createSimulator(scenario, { policy: sandbox ? sandboxHook(sandbox, { kind: 'zero' }) : undefined }).run();
    return figures(r, scenario.warmupMinutes * 60, (scenario.warmupMinutes + scenario.minutes) * 60);
  } finally {
    sandbox?.dispose();
  }
}

function snapshotOf(input: ScenarioInput) {
  const s = parseScenario(input);
  const snapshot = buildSnapshot({
    workload: s.workload,
    agents: s.agents,
    roles: rolesFor(prefillOf(s.split), s.nodes - prefillOf(s.split)),
    nodeKinds: expandNodeKinds(s.nodeKinds, s.nodes),
    mechanics: s.mechanics,
    warmupMinutes: s.warmupMinutes,
    minutes: s.minutes,
    seed: s.seed,
  });
  // Bursts are a harness setting: record the trace with them (the trace keeps them aligned on replay).
  if (s.bursts === undefined) return snapshot;
  const trace = generateTrace(loadWorkloadPreset(s.workload), { seed: s.seed, agents: s.agents, minutes: s.warmupMinutes + s.minutes, bursts: s.bursts });
  return { ...snapshot, trace };
}

/** A seed (or, with null, the split given) in the evaluator's replay. */
function replay(seed: string | null, input: ScenarioInput): Figures {
  const snapshot = snapshotOf(input);
  if (seed === null) {
    const { sim } = replaySnapshot(snapshot, undefined, 4);
    return figures(sim, snapshot.warmupSeconds, sim.simSeconds);
  }
  const e = evaluatePolicy(snapshot, { name: seed, source: readFileSync(seedFile(seed), 'utf8') }, { schedCost: { kind: 'zero' } });
  const end = snapshot.warmupSeconds + e.breakdown.makespanSeconds;
  return figures({ metrics: e.metrics, finalSplit: e.finalSplit, splitTimeline: e.splitTimeline }, snapshot.warmupSeconds, end);
}

type Harness = typeof live;

/** The best static split of a run: every nP = 1 .. N-1 with no policy, highest throughput. */
function bestStatic(harness: Harness, input: ScenarioInput): Figures & { split: string } {
  let best: (Figures & { split: string }) | null = null;
  for (let p = 1; p < 9; p++) {
    const split = `${p}P${9 - p}D`;
    const f = harness(null, { ...input, split });
    if (best === null || f.throughput > best.throughput) best = { ...f, split };
  }
  return best!;
}

const SHIFTING: ScenarioInput = { workload: 'shifting', split: '4P5D', warmupMinutes: 0, minutes: 180, seed: 1 };
const STEADY_CC: ScenarioInput = { workload: 'cc', agents: 126, split: '4P5D', warmupMinutes: 30, minutes: 60, seed: 1 };
const CC90: ScenarioInput = { workload: 'cc', agents: 90, split: '6P3D', warmupMinutes: 30, minutes: 60, seed: 1 };
const RESTART_CC: ScenarioInput = { ...CC90, mechanics: parseMechanics('dynamo') };
const BURSTY_CC90: ScenarioInput = { ...CC90, bursts: { periodSeconds: 240, jitterSeconds: 5, probability: 0.06, count: { mean: 3, cv: 0.4 } } };

interface Row {
  case: string;
  harness: 'live' | 'replay';
  policy: string;
  figures: Figures;
  against: { label: string; figures: Figures; split?: string };
}

const CASES: Record<string, (h: Harness, name: 'live' | 'replay') => Row[]> = {
  shifting: (h, name) => [{ case: 'shifting', harness: name, policy: 'evolving-infra', figures: h('evolving-infra', SHIFTING), against: withSplit('best static', bestStatic(h, SHIFTING)) }],
  'steady-cc': (h, name) => [{ case: 'steady-cc', harness: name, policy: 'evolving-infra', figures: h('evolving-infra', STEADY_CC), against: withSplit('best static', bestStatic(h, STEADY_CC)) }],
  'restart-cc': (h, name) => [{ case: 'restart-cc', harness: name, policy: 'dynamo-like', figures: h('dynamo-like', RESTART_CC), against: { label: 'evolving-infra on cc 90 (evolving-infra mechanics)', figures: h('evolving-infra', CC90) } }],
  'arrow-cc': (h, name) => [{ case: 'cc 90', harness: name, policy: 'arrow-like', figures: h('arrow-like', CC90), against: { label: 'evolving-infra, same run', figures: h('evolving-infra', CC90) } }],
  // The other seeds that plan with the predictor, on shifting (not in the default set).
  'others-shifting': (h, name) => {
    const against = withSplit('best static', bestStatic(h, SHIFTING));
    return ['greedy', 'lookahead'].map((policy) => ({ case: 'shifting', harness: name, policy, figures: h(policy, SHIFTING), against }));
  },
  'arrow-bursty': (h, name) => [{ case: 'cc 90 + bursts', harness: name, policy: 'arrow-like', figures: h('arrow-like', BURSTY_CC90), against: { label: 'evolving-infra, same run', figures: h('evolving-infra', BURSTY_CC90) } }],
};

function withSplit(label: string, f: Figures & { split: string }): Row['against'] {
  return { label: `${label} ${f.split}`, figures: f, split: f.split };
}

function line(r: Row): string {
  const f = r.figures;
  const a = r.against.figures;
  const vs = (100 * (f.throughput - a.throughput)) / a.throughput;
  return (
    `| ${r.case} | ${r.harness} | ${r.policy} | ${f.throughput.toFixed(3)} | ${f.ttftP95.toFixed(1)} | ${f.transitions} | ${f.finalSplit} | ${f.meanPrefill.toFixed(1)} / ${f.maxPrefill} ` +
    `| ${r.against.label}: ${a.throughput.toFixed(3)}, P95 ${a.ttftP95.toFixed(1)}, ${a.transitions} transitions | ${vs >= 0 ? '+' : ''}${vs.toFixed(1)}% |`
  );
}

const isMain = process.argv[1] !== undefined && /planner-study\.js$/.test(process.argv[1]);
if (isMain) {
  const flags = benchFlags('planners', 'the planner study: each planner seed in the live plane and in replay', {
    only: { type: 'string', help: `comma-separated cases (default all but others-shifting; known: ${Object.keys(CASES).join(', ')})` },
    json: { type: 'boolean', help: 'print JSON' },
  });
  const names = flags.only !== undefined ? flags.only.split(',') : Object.keys(CASES).filter((n) => n !== 'others-shifting');
  const rows: Row[] = [];
  const json = flags.json;
  if (!json) {
    console.log('| run | harness | policy | req/s | P95 TTFT s | transitions (scored) | final split | mean / max P (scored) | compared with | throughput vs that |');
    console.log('|---|---|---|---|---|---|---|---|---|---|');
  }
  for (const name of names) {
    const c = CASES[name];
    if (!c) throw new Error(`unknown case ${name}; one of ${Object.keys(CASES).join(', ')}`);
    for (const [h, label] of [[live, 'live'], [replay, 'replay']] as const) {
      for (const r of c(h, label)) {
        rows.push(r);
        if (!json) console.log(line(r));
      }
    }
  }
  if (json) console.log(JSON.stringify(rows));
}
