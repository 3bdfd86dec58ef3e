/**
 * How far the stdlib's mean-request prefill price is from the mean of each
 * request's price (Jensen: A = t_uc*t_c + t_uc*(t_uc+1)/2 is convex in t_uc),
 * and how the slices' mix lags the arrivals' (docs/gap-study.md).
 *
 * It replays one policy on one scenario at one seed and records every
 * completion (its time, arrival, t_uc, t_c) by wrapping the metrics
 * recorder's completion method in this process, so the simulator's code is
 * unchanged. Then, per slice (60 s, by completion time as ctx's slices have
 * them) of --from..--to s:
 *   - E[A] / A(E[w]): the mean attention pairs over the pairs of the mean request;
 *   - per kind of ctx.model: the mean per-request prefill time
 *     c0 + c1*E[t_uc] + c2*E[A] over the mean request's c0 + c1*E[t_uc] + c2*A(E[w])
 *     (the time is linear in A, so the mean of per-request times is that);
 *   - with --long N, the share of requests with t_uc > N by completion
 *     minute (what a slice shows) and by arrival minute.
 *
 * Run: npm run build && node --no-node-snapshot dist/bench/mix-bias.js --scenario hetero --seed 103 --policy my.js --from 3600 --to 9000 [--long 15000] [--rows]
 */
import { readPolicyFile } from '../src/cli/policy-file.js';
import { parseSchedCost, replaySnapshot, sandboxHook, snapshotEngineModel } from '../src/evaluate/index.js';
import type { Ctx } from '../src/policy/index.js';
import { PolicySandbox } from '../src/sandbox/index.js';
import { loadScenario, scenarioSnapshot } from '../src/scenario/index.js';
import { MetricsRecorder } from '../src/sim/metrics.js';
import { attentionPairs } from '../src/sim/perf/formulas.js';
import type { PolicyHook } from '../src/sim/policy-hook.js';
import type { RequestState } from '../src/sim/request-state.js';
import { benchFlags, benchInput, benchUsageExit, numberFlag } from './args.js';

const NAME = 'mix-bias';
const flags = benchFlags(NAME, "the mean request's prefill price against the mean of each request's", {
  scenario: { type: 'string', help: 'scenario name or file (required)' },
  seed: { type: 'string', help: "the scenario's seed (default: its own)" },
  policy: { type: 'string', help: 'the policy file (required)' },
  from: { type: 'string', help: 'first simulated second measured (default 0)' },
  to: { type: 'string', help: 'end of the measured span, s (default: the whole run)' },
  long: { type: 'string', help: 't_uc above which a request counts as long, for the lag table (default: no table)' },
  rows: { type: 'boolean', help: 'print every slice, not only the summary' },
});
if (!flags.scenario || !flags.policy) benchUsageExit(NAME, '--scenario and --policy are required');

const scenario = benchInput(NAME, () => loadScenario(flags.scenario!));
const policy = benchInput(NAME, () => readPolicyFile(flags.policy!));
const seed = numberFlag(NAME, 'seed', flags.seed, scenario.run.seed, { integer: true, min: 0 });
const from = numberFlag(NAME, 'from', flags.from, 0, { min: 0 });
const to = numberFlag(NAME, 'to', flags.to, Infinity, { min: 0 });
const long = flags.long === undefined ? null : numberFlag(NAME, 'long', flags.long, 0, { min: 0 });

interface Done {
  t: number;
  arrival: number;
  uncached: number;
  cached: number;
}
const done: Done[] = [];
const original = MetricsRecorder.prototype.completion;
MetricsRecorder.prototype.completion = function (this: MetricsRecorder, rs: RequestState, t: number): void {
  done.push({ t, arrival: rs.arrival, uncached: rs.uncachedTokens, cached: rs.hitTokens });
  original.call(this, rs, t);
};

const snapshot = scenarioSnapshot(scenario, { seed });
snapshotEngineModel(snapshot);
const sandbox = benchInput(NAME, () => PolicySandbox.create(policy.source, { seed: snapshot.seed, name: flags.policy! }));
let model: Ctx['model']['byKind'] = {};
let throughput = 0;
try {
  const hook = sandboxHook(sandbox, parseSchedCost('counted'));
  // The fitted model the policy is given (fixed for the run), from the first ctx.
  const seen: PolicyHook = {
    shouldReschedule: (ctx) => {
      model = ctx.model.byKind;
      return hook.shouldReschedule(ctx);
    },
    schedule: (ctx) => hook.schedule(ctx),
  };
  throughput = replaySnapshot(snapshot, seen, 4).sim.metrics.throughput;
} finally {
  sandbox.dispose();
}

const kinds = Object.keys(model).sort();
const slices = new Map<number, Done[]>();
for (const d of done) {
  if (d.t < from || d.t >= to) continue;
  const k = Math.floor(d.t / 60);
  if (!slices.has(k)) slices.set(k, []);
  slices.get(k)!.push(d);
}
const rows: { start: number; n: number; uc: number; c: number; attention: number; time: number[] }[] = [];
for (const [k, ds] of [...slices.entries()].sort((a, b) => a[0] - b[0])) {
  const n = ds.length;
  const uc = ds.reduce((s, d) => s + d.uncached, 0) / n;
  const c = ds.reduce((s, d) => s + d.cached, 0) / n;
  const ea = ds.reduce((s, d) => s + attentionPairs(d.uncached, d.cached), 0) / n;
  const am = attentionPairs(uc, c);
  const time = kinds.map((kind) => {
    const p = model[kind]!.prefill;
    return (p.c0 + p.c1 * uc + p.c2 * ea) / (p.c0 + p.c1 * uc + p.c2 * am);
  });
  rows.push({ start: k * 60, n, uc, c, attention: am > 0 ? ea / am : 1, time });
}

const fix = (x: number, d = 3): string => x.toFixed(d);
function summary(xs: number[]): string {
  const v = [...xs].sort((a, b) => a - b);
  const at = (q: number): number => v[Math.min(v.length - 1, Math.floor(q * (v.length - 1) + 0.5))]!;
  return `median ${fix(at(0.5))}, p10 ${fix(at(0.1))}, p90 ${fix(at(0.9))}, min ${fix(v[0]!)}, max ${fix(v[v.length - 1]!)}`;
}
console.log(`${scenario.name} seed ${seed}, ${flags.policy}: ${throughput} req/s; ${rows.length} slices of 60 s from ${from} s to ${Math.min(to, rows.length ? rows[rows.length - 1]!.start + 60 : 0)} s`);
console.log(`  E[A] / A(E[w]):  ${summary(rows.map((r) => r.attention))}`);
kinds.forEach((kind, i) => console.log(`  ${kind}: per-request / mean-request prefill time: ${summary(rows.map((r) => r.time[i]!))}`));
if (flags.rows) {
  console.log(['start s', 'n', 'mean t_uc', 'mean t_c', 'E[A]/A(E)', ...kinds.map((k) => `${k} time ratio`)].join('\t'));
  for (const r of rows) console.log([r.start, r.n, fix(r.uc, 0), fix(r.c, 0), fix(r.attention), ...r.time.map((x) => fix(x))].join('\t'));
}
if (long !== null) {
  const byDone = new Map<number, [number, number]>();
  const byArrival = new Map<number, [number, number]>();
  const add = (m: Map<number, [number, number]>, k: number, isLong: boolean): void => {
    const e = m.get(k) ?? [0, 0];
    e[0]++;
    if (isLong) e[1]++;
    m.set(k, e);
  };
  for (const d of done) {
    if (d.t >= from && d.t < to) add(byDone, Math.floor(d.t / 60), d.uncached > long);
    if (d.arrival >= from && d.arrival < to) add(byArrival, Math.floor(d.arrival / 60), d.uncached > long);
  }
  console.log(`\nshare of requests with t_uc > ${long}, by minute of completion (a slice) and of arrival`);
  console.log(['minute s', 'by completion', 'by arrival'].join('\t'));
  const share = (e: [number, number] | undefined): string => (e ? fix(e[1] / e[0], 2) : '-');
  for (const k of [...new Set([...byDone.keys(), ...byArrival.keys()])].sort((a, b) => a - b)) console.log([k * 60, share(byDone.get(k)), share(byArrival.get(k))].join('\t'));
}
