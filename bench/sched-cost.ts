/**
 * Calibration of the `counted` scheduling cost (src/evaluate/sched-cost.ts).
 *
 * 1. Reference loop: shouldReschedule runs N iterations of a loop that
 *    predicts the throughput of one split with the stdlib (the work most
 *    seeds do most of), N = 0, 10, 30, 100, each N in a fresh isolate for
 *    200 calls (about what one evaluation makes). The median isolate CPU per call against the call's counted ops is
 *    fitted by least squares: the slope is the measured ns per op, the
 *    intercept the fixed cost of a call (ctx copied in, answer copied out).
 * 2. Seeds: every seed on a cc window (126 agents, 10 min + 2 min warm-up,
 *    4P5D, evolving-infra mechanics), sandboxed, each call's measured CPU and
 *    counted ops recorded: ns per op net of the fixed cost, and the charge
 *    under `measured` beside the charge under `counted`.
 * 3. Overhead: the evolving-infra evaluation (as bench:evaluate) with the op
 *    count on and off, interleaved in this one run: the wall-time ratio.
 *
 * Run: npm run bench:sched-cost [-- --quick]
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../src/common/package-root.js';
import { buildSnapshot, evaluatePolicy, NS_PER_CALL, NS_PER_OP, replaySnapshot, sandboxHook, type Snapshot } from '../src/evaluate/index.js';
import type { Ctx } from '../src/policy/index.js';
import { PolicySandbox } from '../src/sandbox/index.js';
import { MECHANICS_PRESETS, parseSplit, type PolicyHook } from '../src/sim/index.js';
import { benchFlags } from './args.js';

const quick = benchFlags('sched-cost', "the counted scheduling cost's calibration", {
  quick: { type: 'boolean', help: 'fewer repetitions' },
}).quick;

// The work most policies do most of: the stdlib's throughput prediction of a split, one split per iteration.
const REFERENCE = `
let sink = 0;
function shouldReschedule(ctx) {
  const n = ctx.now;
  const nodes = ctx.nodes;
  let acc = 0;
  for (let i = 0; i < n; i++) acc += predictThroughput(ctx, splitToRoles(1 + (i % (nodes.length - 1)), nodes));
  sink = acc;
  return false;
}
function schedule(ctx) { return { roles: ctx.plan.roles }; }
`;
/** Calls per loop size, each size in a fresh isolate: about what one evaluation makes, so the code is as warm as a candidate's. */
const REFERENCE_CALLS = 200;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** The ctx of the last call of a replay: the size and shape of what evaluations copy in. */
function capturedCtx(snapshot: Snapshot): Ctx {
  const sandbox = PolicySandbox.create(readFileSync(join(packageRoot(), 'seeds', 'static-4p5d.js'), 'utf8'), { name: 'capture' });
  const inner = sandboxHook(sandbox, { kind: 'zero' });
  let last: Ctx | undefined;
  replaySnapshot(snapshot, { shouldReschedule: (c) => ((last = c), inner.shouldReschedule(c)), schedule: (c) => inner.schedule(c) }, 4);
  sandbox.dispose();
  return structuredClone(last!);
}

function referenceLoop(real: Ctx): { nsPerOp: number; nsPerCall: number } {
  const points: { ops: number; cpuMs: number }[] = [];
  console.log(`reference loop (predictThroughput of one split per iteration) on a cc ctx, fresh isolate per N, median of ${REFERENCE_CALLS} calls:`);
  for (const n of [0, 10, 30, 100]) {
    const sandbox = PolicySandbox.create(REFERENCE, { cpuLimitMs: 1000, name: 'reference-loop' });
    const ctx = { ...real, now: n };
    const cpu: number[] = [];
    let ops = 0;
    for (let i = 0; i < REFERENCE_CALLS; i++) {
      const r = sandbox.shouldReschedule(ctx);
      if (!r.ok) throw new Error(`reference loop failed: ${r.failure.message}`);
      cpu.push(r.cpuMs);
      ops = r.ops;
    }
    sandbox.dispose();
    points.push({ ops, cpuMs: median(cpu) });
    console.log(`  N = ${String(n).padStart(6)}: ${String(ops).padStart(6)} ops, ${(median(cpu) * 1000).toFixed(1).padStart(8)} us CPU per call`);
  }
  const mx = points.reduce((s, p) => s + p.ops, 0) / points.length;
  const my = points.reduce((s, p) => s + p.cpuMs, 0) / points.length;
  const sxy = points.reduce((s, p) => s + (p.ops - mx) * (p.cpuMs - my), 0);
  const sxx = points.reduce((s, p) => s + (p.ops - mx) ** 2, 0);
  const slopeMs = sxy / sxx;
  return { nsPerOp: slopeMs * 1e6, nsPerCall: (my - slopeMs * mx) * 1e6 };
}

function ccSnapshot(minutes: number): Snapshot {
  return buildSnapshot({
    workload: 'cc',
    agents: 126,
    roles: parseSplit('4P5D', 9),
    nodeKinds: Array(9).fill('gb300'),
    mechanics: MECHANICS_PRESETS['evolving-infra'],
    warmupMinutes: 2,
    minutes,
    seed: 1,
  });
}

function recording(inner: PolicyHook, sandbox: PolicySandbox, log: { cpuMs: number; ops: number }[]): PolicyHook {
  // The sandbox reports per call; read its running totals around each hook call.
  const wrap =
    <T>(fn: (ctx: Parameters<PolicyHook['schedule']>[0]) => T) =>
    (ctx: Parameters<PolicyHook['schedule']>[0]): T => {
      const cpu0 = sandbox.cumulativeCpuMs;
      const ops0 = sandbox.cumulativeOps;
      const out = fn(ctx);
      log.push({ cpuMs: sandbox.cumulativeCpuMs - cpu0, ops: sandbox.cumulativeOps - ops0 });
      return out;
    };
  return { shouldReschedule: wrap(inner.shouldReschedule), schedule: wrap(inner.schedule) };
}

function seeds(snapshot: Snapshot, nsPerCall: number): void {
  const dir = join(packageRoot(), 'seeds');
  console.log(`\nseeds on cc, 126 agents, ${snapshot.windowSeconds / 60} min + 2 min warm-up (charged: ${NS_PER_OP} ns/op + ${NS_PER_CALL / 1000} us/call):`);
  console.log('  seed              calls   ops/call  CPU us/call (mean, median)  net ns/op (mean, median)  measured s   counted s');
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.js')).sort()) {
    const sandbox = PolicySandbox.create(readFileSync(join(dir, file), 'utf8'), { seed: snapshot.seed, name: file });
    const log: { cpuMs: number; ops: number }[] = [];
    replaySnapshot(snapshot, recording(sandboxHook(sandbox, { kind: 'measured' }), sandbox, log), 4);
    sandbox.dispose();
    const calls = log.length;
    const ops = log.reduce((s, c) => s + c.ops, 0);
    const cpuMs = log.reduce((s, c) => s + c.cpuMs, 0);
    const netNsPerOp = ops > 0 ? (cpuMs * 1e6 - calls * nsPerCall) / ops : NaN;
    // The median call, net of the fixed cost: robust to the calls a busy machine or the JIT's warm-up inflates.
    const medianNs = median(log.filter((c) => c.ops > 0).map((c) => (c.cpuMs * 1e6 - nsPerCall) / c.ops));
    const counted = (ops * NS_PER_OP + calls * NS_PER_CALL) / 1e9;
    console.log(
      `  ${file.padEnd(17)} ${String(calls).padStart(6)} ${(ops / calls).toFixed(0).padStart(10)} ${((cpuMs / calls) * 1000).toFixed(1).padStart(12)} ${(median(log.map((c) => c.cpuMs)) * 1000).toFixed(1).padStart(9)} ${netNsPerOp.toFixed(1).padStart(15)} ${medianNs.toFixed(1).padStart(9)} ${(cpuMs / 1000).toFixed(4).padStart(13)} ${counted.toFixed(4).padStart(11)}`,
    );
  }
}

function overhead(snapshot: Snapshot, repeat: number): void {
  const source = readFileSync(join(packageRoot(), 'seeds', 'evolving-infra.js'), 'utf8');
  const runs = { on: { wall: [] as number[], cpu: [] as number[] }, off: { wall: [] as number[], cpu: [] as number[] } };
  for (let i = 0; i < repeat; i++) {
    for (const mode of ['off', 'on'] as const) {
      const t0 = process.hrtime.bigint();
      const c0 = process.cpuUsage();
      evaluatePolicy(snapshot, { name: 'evolving-infra', source }, { schedCost: { kind: 'counted' }, sandbox: { countOps: mode === 'on' } });
      const c = process.cpuUsage(c0);
      runs[mode].wall.push(Number(process.hrtime.bigint() - t0) / 1e9);
      runs[mode].cpu.push((c.user + c.system) / 1e6);
    }
  }
  // Process CPU time does not count waiting for a core, so it is the steadier figure on a busy machine.
  const line = (what: 'wall' | 'cpu') => {
    const on = median(runs.on[what]);
    const off = median(runs.off[what]);
    return `${what === 'wall' ? 'wall       ' : 'process CPU'} off ${off.toFixed(3)} s, on ${on.toFixed(3)} s: ratio ${(on / off).toFixed(3)}`;
  };
  console.log(`\nevaluation of evolving-infra (as bench:evaluate), op count off and on, median of ${repeat}, interleaved:`);
  console.log(`  ${line('wall')}`);
  console.log(`  ${line('cpu')}`);
}

const snapshot = ccSnapshot(quick ? 2 : 10);
const fit = referenceLoop(capturedCtx(snapshot));
console.log(`fit: ${fit.nsPerOp.toFixed(2)} ns per op, ${(fit.nsPerCall / 1000).toFixed(1)} us per call`);
seeds(snapshot, fit.nsPerCall);
overhead(snapshot, quick ? 1 : 5);
