/**
 * bench:evolve-suite's rows, table and targets (issue 11's headline targets,
 * and issue 12's v2-vs-roles-only target when both arms ran).
 */
import { parse } from 'acorn';
import { simple } from 'acorn-walk';
import type { ScenarioReport } from '../src/suite/index.js';

export const ARMS = ['v2', 'roles'] as const;
export type Arm = (typeof ARMS)[number];

/** The plan's contract-v2 fields: a policy whose code has an object property of these names may set a knob. */
const KNOB_FIELDS = new Set(['routing', 'eviction', 'transitions', 'batching']);

/** Whether a policy's code can return a plan with a knob: some object literal has a property named like a v2 plan field. */
export function setsKnobs(source: string): boolean {
  let found = false;
  simple(parse(source, { ecmaVersion: 'latest', sourceType: 'script' }), {
    Property(node) {
      const key = node.key;
      const name = key.type === 'Identifier' ? key.name : key.type === 'Literal' ? String(key.value) : '';
      if (KNOB_FIELDS.has(name)) found = true;
    },
  });
  return found;
}

export interface EvolveSummary {
  iterations: number;
  evaluated: number;
  best: { id: number };
  validation?: { best: { id: number }; improvementPct: number | null };
  archive: { occupiedCells: number };
}

interface Score {
  policy: string;
  throughput: number;
  tTotal: number;
}

interface ArmResult extends Score {
  arm: Arm;
  id: number;
  iterations: number;
  evaluated: number;
  cells: number;
  vsSeedPct: number;
  tTotalVsSeedPct: number;
  headroomPct: number | null;
}

export interface Row {
  scenario: string;
  bestSeed: Score;
  /** The best of the seeds that set no knob (the roles-only arm's starting point). */
  bestRolesSeed: Score;
  arms: ArmResult[];
  staticBest: { split: string; throughput: number };
  window: number;
}

export function rowOf(s: ScenarioReport, evolved: readonly { arm: Arm; id: number; summary: EvolveSummary }[], knobSeeds: readonly string[]): Row {
  const score = (p: { policy: string; throughput: number; tTotal: number }): Score => ({ policy: p.policy, throughput: p.throughput, tTotal: p.tTotal });
  const best = (ps: readonly Score[]) => ps.reduce((a, b) => (b.throughput > a.throughput ? b : a));
  const seeds = s.policies.filter((p) => !p.policy.startsWith('evolved-')).map(score);
  const bestSeed = best(seeds);
  const gap = s.oracle.window.throughput - bestSeed.throughput;
  return {
    scenario: s.name,
    bestSeed,
    bestRolesSeed: best(seeds.filter((p) => !knobSeeds.includes(p.policy))),
    arms: evolved.map((e) => {
      const p = score(s.policies.find((q) => q.policy === `evolved-${e.arm}`)!);
      return {
        ...p,
        arm: e.arm,
        id: e.id,
        iterations: e.summary.iterations,
        evaluated: e.summary.evaluated,
        cells: e.summary.archive.occupiedCells,
        vsSeedPct: (p.throughput / bestSeed.throughput - 1) * 100,
        tTotalVsSeedPct: (p.tTotal / bestSeed.tTotal - 1) * 100,
        headroomPct: gap > 0 ? ((p.throughput - bestSeed.throughput) / gap) * 100 : null,
      };
    }),
    staticBest: { split: s.oracle.staticBest.split, throughput: s.oracle.staticBest.throughput },
    window: s.oracle.window.throughput,
  };
}

const f3 = (x: number) => x.toFixed(3);
const pct = (x: number | null) => (x === null ? '-' : `${x >= 0 ? '+' : ''}${x.toFixed(1)} %`);

export function printReport(
  rows: readonly Row[],
  run: { budget: string; mix: string; threads: number; validateSeeds: string; heldOut: number; windowMin?: string; wallMinutes: number; out: string },
): void {
  const log = (line = '') => console.log(line);
  log(
    `bench:evolve-suite: ${run.budget} of evolution per arm and scenario (${run.mix}), ${run.threads} threads, validation seeds ${run.validateSeeds}, held-out seed ${run.heldOut}` +
      `${run.windowMin ? `, trained on ${run.windowMin}-min windows` : ''}; wall ${run.wallMinutes.toFixed(1)} min\n`,
  );
  log('| scenario | arm | best seed (req/s) | evolved (req/s) | vs best seed | T_total vs best seed | best static | window oracle | headroom captured | iterations / evaluated | cells |');
  log('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    for (const a of r.arms) {
      log(
        `| ${r.scenario} | ${a.arm} | ${r.bestSeed.policy} ${f3(r.bestSeed.throughput)} | #${a.id} ${f3(a.throughput)} | ${pct(a.vsSeedPct)} | ${pct(a.tTotalVsSeedPct)} | ${r.staticBest.split} ${f3(r.staticBest.throughput)} | ${f3(r.window)} | ${pct(a.headroomPct)} | ${a.iterations} / ${a.evaluated} | ${a.cells} |`,
      );
    }
  }
  const v2 = rows.map((r) => ({ r, a: r.arms.find((a) => a.arm === 'v2') })).filter((x): x is { r: Row; a: ArmResult } => x.a !== undefined);
  if (v2.length > 0) {
    const below = v2.filter((x) => x.a.vsSeedPct < -1);
    const tenPct = v2.filter((x) => x.a.vsSeedPct >= 10 || x.a.tTotalVsSeedPct <= -10);
    const shifting = v2.find((x) => x.r.scenario === 'shifting');
    log('\nTargets of issue 11 (arm v2, held-out seed):');
    log(`- never more than 1 % below the best seed: ${below.length === 0 ? 'met' : `NOT met on ${below.map((x) => `${x.r.scenario} (${pct(x.a.vsSeedPct)})`).join(', ')}`}`);
    log(`- >= 10 % better than the best seed on at least 3 scenarios: ${tenPct.length >= 3 ? 'met' : 'NOT met'} (${tenPct.length}: ${tenPct.map((x) => x.r.scenario).join(', ') || 'none'}${v2.length < 3 ? `; only ${v2.length} scenario(s) run` : ''})`);
    log(`- shifting closes >= half the best-seed-to-window-oracle gap: ${shifting ? (shifting.a.headroomPct !== null && shifting.a.headroomPct >= 50 ? 'met' : `NOT met (${pct(shifting.a.headroomPct)})`) : 'not run'}`);
  }
  const both = rows.map((r) => ({ r, v2: r.arms.find((a) => a.arm === 'v2'), roles: r.arms.find((a) => a.arm === 'roles') })).filter((x) => x.v2 && x.roles);
  if (both.length > 0) {
    log('\nContract v2 against roles only (issue 12, held-out seed):');
    log('| scenario | best roles-only seed | evolved roles-only | evolved v2 | v2 vs roles-only (req/s) | v2 vs roles-only (T_total) |');
    log('|---|---|---|---|---|---|');
    const gains = both.map(({ r, v2: a, roles: b }) => {
      const thr = (a!.throughput / b!.throughput - 1) * 100;
      const tt = (a!.tTotal / b!.tTotal - 1) * 100;
      log(`| ${r.scenario} | ${r.bestRolesSeed.policy} ${f3(r.bestRolesSeed.throughput)} | #${b!.id} ${f3(b!.throughput)} | #${a!.id} ${f3(a!.throughput)} | ${pct(thr)} | ${pct(tt)} |`);
      return { scenario: r.scenario, better: thr >= 5 || tt <= -5 };
    });
    const won = gains.filter((g) => g.better);
    log(`- v2 >= 5 % better than roles-only on at least 2 scenarios: ${won.length >= 2 ? 'met' : 'NOT met'} (${won.length}: ${won.map((g) => g.scenario).join(', ') || 'none'})`);
  }
  log(`\nlineages and evolved policies: ${run.out} (autopoiesis show ID --db ${run.out}/NAME-ARM.db --diff)`);
}
