import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseSchedCost } from '../../src/evaluate/index.js';
import { expect } from 'vitest';
import { DataPlane, type DataPlaneOptions, type DataPlaneResult, type PolicySpec } from '../../src/dataplane/index.js';
import { openWorkload, parseScenario, type Scenario, type ScenarioInput } from '../../src/sim/index.js';
import type { WorkloadEvent, WorkloadSource } from '../../src/workload/index.js';

const SEEDS = fileURLToPath(new URL('../../seeds/', import.meta.url));

export function seed(name: string): PolicySpec {
  return { name, code: readFileSync(join(SEEDS, `${name}.js`), 'utf8'), candidateId: null };
}

/** Small and fast: 5 nodes, a few coding agents, a few minutes. */
export function smallScenario(over: Partial<ScenarioInput> = {}): Scenario {
  return parseScenario({ workload: 'cc', agents: 12, nodes: 5, split: '2P3D', warmupMinutes: 0, minutes: 6, seed: 5, ...over });
}

/** Sandbox limits that do not flake on a loaded machine; deterministic charges. */
export const TEST_OPTIONS: DataPlaneOptions = { sandbox: { cpuLimitMs: 1000 }, schedCost: parseSchedCost('zero') };

export function tempDir(prefix = 'dataplane-'): { dir: string; staging: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, staging: join(dir, 'staging'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Moves one node between P and D every `period` seconds. */
export function flipper(period = 60): string {
  return `
function shouldReschedule(ctx) { return Math.floor(ctx.now / ${period}) !== Math.floor((ctx.now - 5) / ${period}); }
function schedule(ctx) {
  const roles = ctx.plan.roles.slice();
  roles[1] = roles[1] === 'P' ? 'D' : 'P';
  return { roles };
}`;
}

/** Loads and answers on the first call it is given (the validation call), then throws from `from` on. */
export function failsFrom(from: number): string {
  return `
function shouldReschedule(ctx) { if (ctx.now >= ${from}) throw new Error('broken at ' + ctx.now); return false; }
function schedule(ctx) { return { roles: ctx.plan.roles }; }`;
}

/** Wraps a source and checks, per request id, that it is emitted once and completed at most once, after it was emitted. */
export function trackedSource(inner: WorkloadSource): WorkloadSource & { emitted: Map<number, number>; completed: Map<number, number>; problems: string[] } {
  const emitted = new Map<number, number>();
  const completed = new Map<number, number>();
  const problems: string[] = [];
  const note = (events: WorkloadEvent[]) => {
    for (const e of events) {
      if (e.kind !== 'request') continue;
      if (emitted.has(e.request.id)) problems.push(`request ${e.request.id} emitted twice`);
      emitted.set(e.request.id, e.at);
    }
    return events;
  };
  return {
    name: inner.name,
    model: inner.model,
    emitted,
    completed,
    problems,
    start: () => note(inner.start()),
    onComplete(id, now) {
      if (!emitted.has(id)) problems.push(`request ${id} completed but never emitted`);
      if (completed.has(id)) problems.push(`request ${id} completed twice`);
      completed.set(id, now);
      return note(inner.onComplete(id, now));
    },
    onWake: (token, now) => note(inner.onWake(token, now)),
  };
}

export function makePlane(scenario: Scenario, policy: PolicySpec, options: DataPlaneOptions = {}): DataPlane {
  return new DataPlane(scenario, policy, { ...TEST_OPTIONS, ...options });
}

export function tracked(scenario: Scenario) {
  return trackedSource(openWorkload(scenario));
}

/** Steps until the simulated time reaches `t` (or the run ends). */
export function stepUntil(plane: DataPlane, t: number): void {
  while (plane.nextStepAt <= t && plane.step()) {
    // stepping
  }
}

/** Runs the plane to the end of its scenario, doing each action when the simulated time reaches its moment (e.g. staging a policy). */
export function runWith(plane: DataPlane, actions: readonly (readonly [number, () => void])[]): DataPlaneResult {
  for (const [at, act] of actions) {
    stepUntil(plane, at);
    act();
  }
  while (plane.step()) {
    // to the end of the scenario
  }
  return plane.finish();
}

/** Every emitted request that arrived is completed or still in the cluster, ids are unique, and the report's counts say so. */
export function expectEveryRequestAccounted(source: ReturnType<typeof trackedSource>, result: DataPlaneResult): void {
  expect(source.problems).toEqual([]);
  const end = result.sim.simSeconds;
  const arrived = [...source.emitted].filter(([, at]) => at <= end).map(([id]) => id);
  expect(new Set(arrived).size).toBe(arrived.length);
  const inFlight = arrived.filter((id) => !source.completed.has(id));
  expect(inFlight.length).toBe(result.sim.metrics.requestsInFlight);
  expect(result.requests).toEqual({ arrived: arrived.length, completed: source.completed.size, inFlight: inFlight.length, dropped: 0 });
  expect(result.sim.metrics.requestsArrived).toBe(arrived.length);
}
