import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sampleCtx, type Ctx, type KindModel, type Role, type Slice } from '../../src/policy/index.js';

export const SEEDS_DIR = fileURLToPath(new URL('../../seeds/', import.meta.url));

export const SEED_NAMES = ['affinity-switch', 'arrow-like', 'dynamo-like', 'evolving-infra', 'greedy', 'lookahead', 'paced-restart', 'static-4p5d'] as const;
export type SeedName = (typeof SEED_NAMES)[number];

export function seedFiles(): string[] {
  return readdirSync(SEEDS_DIR)
    .filter((f) => f.endsWith('.js'))
    .sort();
}

export function seedSource(name: SeedName): string {
  return readFileSync(`${SEEDS_DIR}${name}.js`, 'utf8');
}

/** A slower second node kind, for heterogeneous clusters (values plausible, not calibrated). */
export const H200_MODEL: KindModel = {
  prefill: { c0: 0.025, c1: 4.1e-5, c2: 2.3e-10, c3: 2.5e-6 },
  decode: { d0: 0.016, d1: 0.02, d2: 1.6e-4 },
  kFraction: 8 / 256,
  tFwd: 2,
  tAcc: 1.6,
  maxDecodeBatch: 96,
};

/** The role each node is headed to (its targetRole while switching). */
export function headed(ctx: Ctx): Role[] {
  return ctx.nodes.map((n) => n.targetRole ?? n.role);
}

/** { P, D } among the up nodes of a plan. */
export function upSplit(roles: readonly Role[], ctx: Ctx): { P: number; D: number } {
  let P = 0;
  let D = 0;
  roles.forEach((r, i) => {
    if (ctx.nodes[i]!.state === 'down') return;
    if (r === 'P') P++;
    else D++;
  });
  return { P, D };
}

function emptySlice(s: Slice): Slice {
  return {
    ...s,
    arrivals: 0,
    completions: 0,
    meanUncachedTokens: null,
    meanCachedTokens: null,
    meanOutputTokens: null,
    meanAcceptedPerIter: null,
    meanPrefillQueue: 0,
    meanDecodeQueue: 0,
    ttftP50: null,
    ttftP95: null,
    e2eP50: null,
    e2eP95: null,
    kvHitRate: null,
  };
}

/** Mark node i down, as the data plane reports it right after the event. */
export function withNodeDown(ctx: Ctx, i: number): Ctx {
  const c = structuredClone(ctx);
  c.nodes[i] = { ...c.nodes[i]!, state: 'down', queueLength: 0, running: 0 };
  c.membership.push({ node: c.nodes[i]!.id, event: 'down', at: c.now - 2 });
  return c;
}

/**
 * The ctx variants every seed must handle: warm-up windows, missing
 * statistics, membership changes, nodes mid-switch or restarting, two node
 * kinds, tiny clusters, stricter limits.
 */
export function ctxVariants(): Record<string, Ctx> {
  const v: Record<string, Ctx> = {};
  v.sample = sampleCtx();
  for (const seed of [2, 3, 4]) v[`sample seed ${seed}`] = sampleCtx({ seed, prefillNodes: seed });

  const empty = sampleCtx();
  empty.window.slices = [];
  v['empty window'] = empty;

  const nulls = sampleCtx();
  nulls.window.slices = nulls.window.slices.map(emptySlice);
  v['all statistics null'] = nulls;

  const warm = sampleCtx({ now: 240, slices: 4 });
  warm.window.slices = warm.window.slices.map((s, i) => (i < 2 ? emptySlice(s) : s));
  warm.window.slices[3]!.meanOutputTokens = null; // nothing completed yet in the latest slice
  warm.window.slices[3]!.meanAcceptedPerIter = null;
  warm.transitions = [];
  warm.lastRescheduleAt = null;
  v['warm-up: early slices null'] = warm;

  const one = sampleCtx({ slices: 1 });
  v['one slice'] = one;

  v['a prefill node down'] = withNodeDown(sampleCtx(), 1);
  v['a decode node down'] = withNodeDown(sampleCtx(), 7);

  let allPDown = sampleCtx();
  for (let i = 0; i < 4; i++) allPDown = withNodeDown(allPDown, i);
  v['every prefill node down'] = allPDown;

  const back = sampleCtx();
  back.membership.push({ node: 2, event: 'up', at: back.now - 1 });
  back.nodes[2]!.queueLength = 0;
  back.nodes[2]!.running = 0;
  v['a node came back up'] = back;

  const switching = sampleCtx();
  switching.nodes[3] = { ...switching.nodes[3]!, state: 'switching', role: 'P', targetRole: 'D', queueLength: 0, running: 1 };
  switching.plan.roles[3] = 'D';
  switching.transitions.push({ node: 3, from: 'P', to: 'D', start: switching.now - 4 });
  switching.lastRescheduleAt = switching.now - 4;
  v['a node switching P->D'] = switching;

  const switchingOld = structuredClone(switching);
  switchingOld.lastRescheduleAt = switchingOld.now - 600;
  switchingOld.transitions = [{ node: 3, from: 'P', to: 'D', start: switchingOld.now - 600 }];
  switchingOld.membership.push({ node: 8, event: 'down', at: switchingOld.now - 1 });
  switchingOld.nodes[8] = { ...switchingOld.nodes[8]!, state: 'down' };
  v['a long switch and a node down'] = switchingOld;

  const restarting = sampleCtx();
  restarting.nodes[6] = { ...restarting.nodes[6]!, state: 'restarting', queueLength: 0, running: 0 };
  v['a node restarting'] = restarting;

  const hetero = sampleCtx();
  for (let i = 5; i < 9; i++) hetero.nodes[i]!.kind = 'h200';
  hetero.nodes[0]!.kind = 'h200';
  hetero.model.byKind.h200 = H200_MODEL;
  v['two node kinds'] = hetero;

  v['two nodes'] = sampleCtx({ nodes: 2, prefillNodes: 1 });

  let threeUp = sampleCtx();
  for (const i of [0, 1, 2, 5, 6, 7]) threeUp = withNodeDown(threeUp, i);
  v['three nodes up'] = threeUp;

  let oneUp = sampleCtx({ nodes: 3, prefillNodes: 1 });
  for (const i of [0, 1]) oneUp = withNodeDown(oneUp, i);
  v['one node up'] = oneUp;

  const strict = sampleCtx();
  strict.limits = { minPrefill: 2, minDecode: 3 };
  v['limits 2P 3D'] = strict;

  const bigCluster = sampleCtx({ nodes: 16, prefillNodes: 7 });
  v['16 nodes'] = bigCluster;

  return v;
}

/**
 * A prefill-starved window on 4P5D: long uncached prompts and a long prefill
 * queue in every slice (a little noise so that the gain has a spread).
 */
export function prefillStarved(seed = 1): Ctx {
  const ctx = sampleCtx({ seed });
  ctx.window.slices.forEach((s, i) => {
    s.meanUncachedTokens = 16_000 + 700 * Math.sin(i * 1.7);
    s.meanCachedTokens = 30_000 + 2_000 * Math.cos(i);
    s.meanPrefillQueue = 60 + 5 * Math.sin(i);
  });
  ctx.nodes.forEach((n) => {
    if (n.role === 'P') n.queueLength = 25;
  });
  return ctx;
}

/**
 * A noisy window on 4P5D: slices alternate between prefill-heavy (long new
 * prompts) and decode-heavy (short prompts, long outputs), so every other
 * split wins on some slices and loses on others.
 */
export function noisyWindow(seed = 1): Ctx {
  const ctx = sampleCtx({ seed });
  ctx.window.slices.forEach((s, i) => {
    const prefillHeavy = i % 2 === 0;
    s.meanUncachedTokens = prefillHeavy ? 9_000 : 1_200;
    s.meanCachedTokens = 30_000;
    s.meanOutputTokens = prefillHeavy ? 400 : 2_400;
    s.meanAcceptedPerIter = 1.6;
    s.meanDecodeQueue = 900; // full decode batches: a decode node more or less counts
  });
  return ctx;
}
