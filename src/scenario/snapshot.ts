import { existsSync } from 'node:fs';
import type { Snapshot } from '../evaluate/index.js';
import { checkMembership, expandNodeKinds, parseScenario, parseSplit, type RunConfig, type RunConfigInput } from '../sim/index.js';
import { generateTrace, loadWorkloadPreset, readTrace } from '../workload/index.js';
import type { LoadedScenario } from './load.js';

/** Whether a run config's workload is a trace file rather than a preset (as sim/scenario.ts decides). */
export function isTraceWorkload(workload: string): boolean {
  return workload.endsWith('.jsonl') || (workload.includes('/') && existsSync(workload) && !workload.endsWith('.json'));
}

/**
 * What the evaluator replays for a scenario: its workload recorded for
 * warm-up + scored minutes with the seed (`opts.seed`, default the
 * scenario's), on its cluster, mechanics, starting roles and membership. A
 * policy replay of a scenario is `evaluatePolicy(scenarioSnapshot(s), policy, opts)`.
 */
export function scenarioSnapshot(s: LoadedScenario, opts: { seed?: number } = {}): Snapshot {
  const run = s.run;
  const seed = opts.seed ?? run.seed;
  const trace = isTraceWorkload(run.workload)
    ? readTrace(run.workload)
    : generateTrace(loadWorkloadPreset(run.workload), {
        seed,
        minutes: run.warmupMinutes + run.minutes,
        agents: run.agents,
        arrivalRate: run.arrivalRate,
        bursts: run.bursts,
        ...(run.outputCv !== undefined ? { outputCv: run.outputCv } : {}),
      });
  return {
    label: `scenario ${s.name}${seed !== s.spec.seed ? ` (seed ${seed})` : ''}`,
    trace,
    roles: parseSplit(run.split, run.nodes),
    nodeKinds: expandNodeKinds(run.nodeKinds, run.nodes),
    mechanics: run.mechanics,
    warmupSeconds: run.warmupMinutes * 60,
    windowSeconds: run.minutes * 60,
    membership: run.membership.map((m) => ({ ...m })),
    seed,
  };
}

/**
 * The scenario with some run-config fields replaced (flags given beside
 * `--scenario`, shortened test runs). A new node count without new kinds or
 * split must come with them; the membership is checked against the new
 * count. `contentHash` still names the file's content.
 */
export function withRunOverrides(s: LoadedScenario, overrides: Partial<RunConfigInput>): LoadedScenario {
  const defined = Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined)) as Partial<RunConfigInput>;
  const merged: RunConfigInput = { ...s.run, ...defined };
  // An explicit agent count replaces an arrival rate (and the other way round): the two loops exclude each other.
  if (defined.agents !== undefined && defined.arrivalRate === undefined) delete merged.arrivalRate;
  if (defined.arrivalRate !== undefined && defined.agents === undefined) delete merged.agents;
  // A new workload does not inherit the scenario's loop or bursts unless given again.
  if (defined.workload !== undefined && defined.workload !== s.run.workload) {
    if (defined.agents === undefined) delete merged.agents;
    if (defined.arrivalRate === undefined) delete merged.arrivalRate;
    if (defined.bursts === undefined) delete merged.bursts;
    if (defined.outputCv === undefined) delete merged.outputCv;
  }
  const run: RunConfig = parseScenario(merged);
  checkMembership(run.membership, run.nodes);
  parseSplit(run.split, run.nodes);
  return { ...s, run };
}
