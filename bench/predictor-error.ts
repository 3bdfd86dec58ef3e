/**
 * How wrong is the stdlib's throughput predictor? For each scenario and each
 * static split nP = 1 .. N-1, the scenario is simulated with no policy (a
 * recording hook only takes ctx at every 10-minute window end); then, per
 * window and per split S:
 *   simulated  = requests completed in the window at split S / 600 s;
 *   self       = predictThroughput(ctx of S's own run, roles of S);
 *   from R     = predictThroughput(ctx of the run at split R, roles of S):
 *                what a planner sitting at R believes S would serve, which is
 *                what it decides on.
 * Each scenario's windows are grouped by phase (shifting: putnam, mix,
 * osworld; cc: the scored hour), skipping each phase's first windows while
 * the closed loop's agent population turns over. Errors are
 * (predicted - simulated) / simulated. "pick" is the split a planner at R
 * would choose (argmax of its prediction) and what that split really serves.
 *
 * Run: npm run bench:predictor [-- --json] [-- --only shifting|cc]
 */
import { parseScenario, runScenario, plainPolicy, rolesFor, type ScenarioInput, type PolicyCtx } from '../src/sim/index.js';
import { stdlib } from '../src/policy/stdlib.js';
import { benchFlags } from './args.js';

const WINDOW = 600;

interface Phase {
  name: string;
  /** Window ends (s) that count for this phase. */
  ends: number[];
}

interface Case {
  name: string;
  scenario: ScenarioInput;
  phases: Phase[];
  /** Splits (prefill counts) whose ctx is used for the "from R" columns. */
  refs: number[];
}

function ends(fromMin: number, toMin: number): number[] {
  const out: number[] = [];
  for (let m = fromMin + 10; m <= toMin; m += 10) out.push(m * 60);
  return out;
}

const CASES: Case[] = [
  {
    name: 'shifting',
    scenario: { workload: 'shifting', warmupMinutes: 0, minutes: 180, seed: 1 },
    phases: [
      { name: 'putnam', ends: ends(20, 60) },
      { name: 'mix', ends: ends(80, 120) },
      { name: 'osworld', ends: ends(140, 180) },
    ],
    refs: [4, 7],
  },
  {
    name: 'cc',
    scenario: { workload: 'cc', agents: 126, warmupMinutes: 30, minutes: 60, seed: 1 },
    phases: [{ name: 'cc-126', ends: ends(30, 90) }],
    refs: [4],
  },
];

interface Run {
  p: number;
  /** ctx recorded at each window end. */
  ctxAt: Map<number, PolicyCtx>;
  /** Completions per window end. */
  servedAt: Map<number, number>;
  throughput: number;
}

function runSplit(c: Case, nodes: number, p: number): Run {
  const ctxAt = new Map<number, PolicyCtx>();
  const hook = plainPolicy({
    shouldReschedule: (ctx) => {
      if (Math.abs(ctx.now / WINDOW - Math.round(ctx.now / WINDOW)) < 1e-9 && ctx.now > 0) ctxAt.set(Math.round(ctx.now), structuredClone(ctx));
      return false;
    },
    schedule: (ctx) => ({ roles: ctx.plan.roles }),
  });
  const scenario = parseScenario({ ...c.scenario, split: `${p}P${nodes - p}D` });
  const r = runScenario(scenario, { policy: hook });
  const servedAt = new Map<number, number>();
  for (const end of c.phases.flatMap((ph) => ph.ends)) {
    let n = 0;
    for (const s of r.slices) if (s.start >= end - WINDOW - 1e-9 && s.end <= end + 1e-9) n += s.completions;
    servedAt.set(end, n / WINDOW);
  }
  return { p, ctxAt, servedAt, throughput: r.metrics.throughput };
}

function predict(ctx: PolicyCtx, nodes: number, p: number): number {
  return stdlib.predictThroughput(ctx, rolesFor(p, nodes - p));
}

const avg = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const pct = (pred: number, sim: number): number => (sim > 0 ? (100 * (pred - sim)) / sim : NaN);

interface Row {
  split: string;
  simulated: number;
  self: number;
  selfErrPct: number;
  from: Record<string, { predicted: number; errPct: number }>;
}

interface PhaseReport {
  case: string;
  phase: string;
  rows: Row[];
  best: string;
  picks: Record<string, { split: string; simulated: number }>;
  meanAbsErrPct: { self: number; cross: number };
}

function analyse(c: Case, runs: Run[], nodes: number): PhaseReport[] {
  const out: PhaseReport[] = [];
  const name = (p: number): string => `${p}P${nodes - p}D`;
  for (const ph of c.phases) {
    const rows: Row[] = [];
    const crossErrs: number[] = [];
    for (const run of runs) {
      const sim = avg(ph.ends.map((e) => run.servedAt.get(e) ?? 0));
      const self = avg(ph.ends.map((e) => predict(run.ctxAt.get(e)!, nodes, run.p)));
      const from: Row['from'] = {};
      for (const ref of c.refs) {
        const refRun = runs.find((r) => r.p === ref)!;
        const pred = avg(ph.ends.map((e) => predict(refRun.ctxAt.get(e)!, nodes, run.p)));
        from[name(ref)] = { predicted: pred, errPct: pct(pred, sim) };
        crossErrs.push(Math.abs(pct(pred, sim)));
      }
      rows.push({ split: name(run.p), simulated: sim, self, selfErrPct: pct(self, sim), from });
    }
    const best = rows.reduce((a, b) => (b.simulated > a.simulated ? b : a));
    const picks: PhaseReport['picks'] = {};
    for (const ref of c.refs) {
      const pick = rows.reduce((a, b) => (b.from[name(ref)]!.predicted > a.from[name(ref)]!.predicted ? b : a));
      picks[name(ref)] = { split: pick.split, simulated: pick.simulated };
    }
    out.push({
      case: c.name,
      phase: ph.name,
      rows,
      best: best.split,
      picks,
      meanAbsErrPct: { self: avg(rows.map((r) => Math.abs(r.selfErrPct))), cross: avg(crossErrs) },
    });
  }
  return out;
}

function markdown(reports: PhaseReport[]): string {
  const f = (x: number): string => x.toFixed(2);
  const e = (x: number): string => `${x >= 0 ? '+' : ''}${x.toFixed(0)}%`;
  let text = '';
  for (const rep of reports) {
    const refs = Object.keys(rep.rows[0]!.from);
    text += `\n${rep.case} / ${rep.phase}: best simulated ${rep.best}; mean |error| self ${rep.meanAbsErrPct.self.toFixed(1)}%, from ${refs.join('/')} ${rep.meanAbsErrPct.cross.toFixed(1)}%\n\n`;
    text += `| split | simulated | predicted (own run) | error | ${refs.map((r) => `predicted from ${r} | error`).join(' | ')} |\n`;
    text += `|---|---|---|---|${refs.map(() => '---|---').join('|')}|\n`;
    for (const r of rep.rows) {
      text += `| ${r.split} | ${f(r.simulated)} | ${f(r.self)} | ${e(r.selfErrPct)} | ${refs.map((ref) => `${f(r.from[ref]!.predicted)} | ${e(r.from[ref]!.errPct)}`).join(' | ')} |\n`;
    }
    text += `\n${refs.map((ref) => `planner at ${ref} picks ${rep.picks[ref]!.split} (serves ${f(rep.picks[ref]!.simulated)})`).join('; ')}\n`;
  }
  return text;
}

const flags = benchFlags('predictor', "the throughput predictor's error against the simulator", {
  json: { type: 'boolean', help: 'print JSON' },
  only: { type: 'string', help: 'one case' },
});
const json = flags.json;
const only = flags.only;
const nodes = 9;
const reports: PhaseReport[] = [];
for (const c of CASES) {
  if (only !== undefined && c.name !== only) continue;
  const runs: Run[] = [];
  for (let p = 1; p < nodes; p++) runs.push(runSplit(c, nodes, p));
  reports.push(...analyse(c, runs, nodes));
}
if (json) console.log(JSON.stringify(reports));
else console.log(markdown(reports));
