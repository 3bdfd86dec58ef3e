/**
 * Where a policy loses against the window oracle, and how far the oracle is
 * from what any schedule of splits can serve (docs/gap-study.md).
 *
 * For one scenario at one seed, with its oracles already in the suite's cache
 * (`autopoiesis suite --scenarios X --seed N --oracles-only` computes them),
 * it replays each policy and prints:
 *   - the trace's request count beside the completions the window oracle sums
 *     (on a drained replay every run completes the trace's requests once, so
 *     a sum above that count is completions no schedule can have);
 *   - per policy: throughput, makespan, role changes (P->D, D->P) and the
 *     node-seconds spent draining; and, against the first policy, the lag
 *     (s) at which it reaches 10 %, 25 %, 50 %, 75 % and 100 % of the
 *     requests (negative: ahead);
 *   - with --windows, per 10-minute window the oracle's split and completions
 *     beside the first policy's splits, completions and role changes.
 *
 * Run: npm run build && node --no-node-snapshot dist/bench/window-gap.js --scenario shifting --seed 103 --policies seeds/greedy.js,my.js [--windows]
 */
import { readPolicyFile } from '../src/cli/policy-file.js';
import { parseSchedCost, replaySnapshot, sandboxHook, snapshotEngineModel } from '../src/evaluate/index.js';
import { PolicySandbox } from '../src/sandbox/index.js';
import { loadScenario, scenarioSnapshot } from '../src/scenario/index.js';
import { OracleCache } from '../src/suite/cache.js';
import { cachedOracles } from '../src/suite/oracle.js';
import { scenarioCluster, scenarioSource } from '../src/suite/snapshot-source.js';
import { completionsIn } from '../src/suite/window-oracle.js';
import type { SliceCount } from '../src/suite/split-run.js';
import { benchFlags, benchInput, benchUsageExit, numberFlag } from './args.js';

const NAME = 'window-gap';
const flags = benchFlags(NAME, "a policy's loss against the window oracle, and the oracle's over-count", {
  scenario: { type: 'string', help: 'scenario name or file (required)' },
  seed: { type: 'string', help: "the scenario's seed (default: its own)" },
  policies: { type: 'string', help: 'policy files, comma-separated; the first is the reference of the lag columns (required)' },
  'cache-dir': { type: 'string', help: 'the oracle cache (default runs/oracles)' },
  windows: { type: 'boolean', help: "print the first policy's windows beside the oracle's" },
});
if (!flags.scenario || !flags.policies) benchUsageExit(NAME, '--scenario and --policies are required');

const scenario = benchInput(NAME, () => loadScenario(flags.scenario!));
const seed = numberFlag(NAME, 'seed', flags.seed, scenario.run.seed, { integer: true, min: 0 });
const input = { name: scenario.name, seed, contentHash: scenario.contentHash, source: scenarioSource(scenario, seed), ...scenarioCluster(scenario) };
const oracle = cachedOracles(input, { cache: new OracleCache(flags['cache-dir'] ?? 'runs/oracles') });
if (!oracle) benchUsageExit(NAME, `no cached oracles for ${scenario.name} seed ${seed}: run \`autopoiesis suite --scenarios ${scenario.name} --seed ${seed} --oracles-only\` first`);

const snapshot = scenarioSnapshot(scenario, { seed });
snapshotEngineModel(snapshot);
const schedCost = parseSchedCost('counted');

interface Run {
  name: string;
  throughput: number;
  makespan: number;
  completed: number;
  slices: (SliceCount & { split: string })[];
  transitions: { start: number; end: number | null; to: 'P' | 'D' }[];
}

function run(file: string, policy: { name: string; source: string }): Run {
  const sandbox = benchInput(NAME, () => PolicySandbox.create(policy.source, { seed: snapshot.seed, name: file }));
  try {
    const { sim } = replaySnapshot(snapshot, sandboxHook(sandbox, schedCost), 4);
    const w = snapshot.warmupSeconds;
    return {
      name: policy.name,
      throughput: sim.metrics.throughput,
      makespan: sim.simSeconds - w,
      completed: sim.metrics.requestsCompleted,
      slices: sim.slices.filter((s) => s.end > w).map((s) => ({ start: Math.max(s.start, w), end: Math.min(s.end, sim.simSeconds), completions: s.completions, split: s.split })),
      transitions: sim.transitions.filter((t) => t.start >= w).map((t) => ({ start: t.start, end: t.end, to: t.to })),
    };
  } finally {
    sandbox.dispose();
  }
}

/** When the run's k-th scored completion happens (completions spread evenly over each slice). */
function timeOf(r: Run, k: number): number {
  let c = 0;
  for (const s of r.slices) {
    if (c + s.completions >= k) return s.start + ((k - c) / Math.max(s.completions, 1e-9)) * (s.end - s.start);
    c += s.completions;
  }
  return r.slices.length > 0 ? r.slices[r.slices.length - 1]!.end : 0;
}

// Every file is read before the first replay, so that a bad name in the list fails at once.
const files = flags.policies!.split(',').map((f) => f.trim());
const policies = files.map((f) => benchInput(NAME, () => readPolicyFile(f)));
const runs = files.map((f, i) => run(f, policies[i]!));
const win = oracle!.window;
const summed = win.windows.reduce((n, x) => n + x.completions, 0);
const requests = Math.max(...oracle!.runs.map((r) => r.completed));
console.log(`${scenario.name} seed ${seed}: best static ${oracle!.staticBest.split} ${oracle!.staticBest.throughput} req/s; window oracle ${win.throughput} req/s = ${summed.toFixed(0)} completions over ${(win.to - win.from).toFixed(0)} s`);
console.log(`  scored completions of the static runs: at most ${requests}; the oracle sums ${((summed / requests - 1) * 100).toFixed(1)} % more`);
console.log('');
const ref = runs[0]!;
const marks = [0.1, 0.25, 0.5, 0.75, 1];
console.log(['policy', 'req/s', 'makespan s', 'changes (P->D/D->P)', 'drain node-s', ...marks.map((m) => `lag@${m * 100}%`)].join('\t'));
for (const r of runs) {
  const drain = r.transitions.reduce((s, t) => s + ((t.end ?? t.start) - t.start), 0);
  const toD = r.transitions.filter((t) => t.to === 'D').length;
  const lags = marks.map((m) => (timeOf(r, m * ref.completed - 0.5) - timeOf(ref, m * ref.completed - 0.5)).toFixed(0));
  console.log([r.name, r.throughput, r.makespan.toFixed(0), `${r.transitions.length} (${toD}/${r.transitions.length - toD})`, drain.toFixed(0), ...lags].join('\t'));
}
if (flags.windows) {
  console.log(`\nwindows (${ref.name} against the oracle)`);
  console.log(['start s', 'oracle split', 'oracle done', `${ref.name} splits`, `${ref.name} done`, 'changes'].join('\t'));
  for (const w of win.windows) {
    const splits: string[] = [];
    for (const s of ref.slices) if (s.start < w.end && s.end > w.start && splits[splits.length - 1] !== s.split) splits.push(s.split);
    const changes = ref.transitions.filter((t) => t.start >= w.start && t.start < w.end).length;
    console.log([w.start.toFixed(0), w.split, w.completions.toFixed(0), splits.join(',') || '-', completionsIn(ref.slices, w.start, w.end).toFixed(0), changes].join('\t'));
  }
}
