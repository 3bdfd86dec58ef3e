/**
 * Overhead of one sandboxed policy call, host side: copying a realistic ctx
 * (9 nodes, 10 slices) in, running a typical shouldReschedule, copying the
 * answer out and checking it. Run: npm run bench:sandbox
 */
import { sampleCtx, type Ctx } from '../src/policy/index.js';
import { PolicySandbox } from '../src/sandbox/index.js';

const CALLS = 20_000;
const WARMUP = 2_000;
const TARGET_MEDIAN_US = 50;

// What a seed policy's cheap check looks like: a cool-down, membership
// changes, then queue pressure per phase over the window.
const POLICY = `
function shouldReschedule(ctx) {
  if (ctx.membership.length > 0) return true;
  if (ctx.lastRescheduleAt !== null && ctx.now - ctx.lastRescheduleAt < 120) return false;
  const slices = ctx.window.slices;
  const prefillQueue = mean(slices.map((s) => s.meanPrefillQueue));
  const decodeQueue = mean(slices.map((s) => s.meanDecodeQueue));
  const split = countRoles(ctx.plan.roles, ctx.nodes);
  const ttft = percentile(slices.map((s) => s.ttftP95), 50);
  return prefillQueue / split.P > 8 || decodeQueue / split.D > 96 || ttft > 10;
}
function schedule(ctx) {
  return { roles: ctx.plan.roles };
}
`;

function percentileOf(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

type Answer = { ok: true; cpuMs: number } | { ok: false; cpuMs: number; failure: Error & { kind: string } };

function measure(label: string, call: (ctx: Ctx) => Answer, ctxs: Ctx[]): number {
  for (let i = 0; i < WARMUP; i++) call(ctxs[i % ctxs.length]!);
  const micros: number[] = new Array(CALLS);
  let cpuMs = 0;
  for (let i = 0; i < CALLS; i++) {
    const ctx = ctxs[i % ctxs.length]!;
    const t0 = process.hrtime.bigint();
    const r = call(ctx);
    micros[i] = Number(process.hrtime.bigint() - t0) / 1000;
    if (!r.ok) throw new Error(`${label} failed during the benchmark: ${r.failure.kind}: ${r.failure.message}`);
    cpuMs += r.cpuMs;
  }
  micros.sort((a, b) => a - b);
  const median = percentileOf(micros, 50);
  console.log(
    `${label.padEnd(17)} median ${median.toFixed(1)} us   P99 ${percentileOf(micros, 99).toFixed(1)} us   ` +
      `mean isolate CPU ${((cpuMs / CALLS) * 1000).toFixed(1)} us   (${CALLS} calls)`,
  );
  return median;
}

function main(): void {
  // Distinct ctx objects, as the data plane builds a new one every step.
  const ctxs = Array.from({ length: 64 }, (_, i) => sampleCtx({ nodes: 9, slices: 10, seed: i + 1, now: 3600 + 5 * i }));
  const sandbox = PolicySandbox.create(POLICY, { seed: 1, name: 'bench' });
  try {
    console.log(`sandbox call overhead, host side (ctx: 9 nodes, 10 slices; node ${process.version})`);
    const median = measure('shouldReschedule', (ctx) => sandbox.shouldReschedule(ctx), ctxs);
    measure('schedule', (ctx) => sandbox.schedule(ctx), ctxs);
    console.log(`target median < ${TARGET_MEDIAN_US} us: ${median < TARGET_MEDIAN_US ? 'met' : 'NOT met'}`);
  } finally {
    sandbox.dispose();
  }
}

main();
