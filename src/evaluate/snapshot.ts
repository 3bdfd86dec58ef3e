import { existsSync } from 'node:fs';
import type { CtxMechanics, Plan } from '../policy/index.js';
import { generateTrace, loadWorkloadPreset, readTrace, type Trace } from '../workload/index.js';
import { expandNodeKinds, knobsAtStart, parseMechanics, parseSplit, type Mechanics, type MembershipChange, type Role, type SimOptions } from '../sim/index.js';

/**
 * What the evaluator replays: a window of recorded work (a trace: requests
 * with their harness dependencies), the cluster it ran on (node kinds and
 * roles at the start of the window) and the membership timeline. The first
 * `warmupSeconds` warm the caches and the policy's window and are not scored.
 */
export interface Snapshot {
  label: string;
  trace: Trace;
  roles: Role[];
  nodeKinds: string[];
  mechanics: Mechanics;
  /**
   * Contract-v2 settings in force where the window starts, on top of
   * `mechanics` (routing, eviction, pacing, batching a deployed policy had
   * set); absent when they are the mechanics' own. The replay starts with
   * them, as the recorded cluster was.
   */
  knobs?: Omit<Plan, 'roles'>;
  warmupSeconds: number;
  /** Recorded seconds of scored work after the warm-up. */
  windowSeconds: number;
  membership: MembershipChange[];
  seed: number;
}

export interface SnapshotSpec {
  workload: string;
  agents?: number;
  roles: Role[];
  nodeKinds: string[];
  mechanics: Mechanics;
  warmupMinutes: number;
  minutes: number;
  membership?: MembershipChange[];
  seed: number;
  /** Overrides the preset's output-length cv (workload/output-spread.ts); presets only. */
  outputCv?: number;
}

/**
 * A snapshot from a preset (its harness recorded for warm-up + window minutes
 * with the seed) or from a trace file (replayed whole).
 */
export function buildSnapshot(spec: SnapshotSpec): Snapshot {
  const isTrace = spec.workload.endsWith('.jsonl') || (existsSync(spec.workload) && !spec.workload.endsWith('.json'));
  const trace = isTrace
    ? readTrace(spec.workload)
    : generateTrace(loadWorkloadPreset(spec.workload), {
        seed: spec.seed,
        agents: spec.agents,
        minutes: spec.warmupMinutes + spec.minutes,
        ...(spec.outputCv !== undefined ? { outputCv: spec.outputCv } : {}),
      });
  return {
    label: isTrace ? spec.workload : `${spec.workload}${spec.agents ? `/${spec.agents} agents` : ''}`,
    trace,
    roles: spec.roles,
    nodeKinds: spec.nodeKinds,
    mechanics: spec.mechanics,
    warmupSeconds: spec.warmupMinutes * 60,
    windowSeconds: spec.minutes * 60,
    membership: spec.membership ?? [],
    seed: spec.seed,
  };
}

/** The cluster given as strings (CLI flags, stored run configs): `4P5D`, `gb300` or `gb300,h200,...`, `sglang-pd,fetch=async`. */
export interface SnapshotStrings {
  workload: string;
  agents?: number;
  nodes: number;
  split: string;
  nodeKinds: string;
  mechanics: string;
  warmupMinutes: number;
  minutes: number;
  seed: number;
  outputCv?: number;
}

export function buildSnapshotFromStrings(spec: SnapshotStrings): Snapshot {
  return buildSnapshot({
    workload: spec.workload,
    agents: spec.agents,
    roles: parseSplit(spec.split, spec.nodes),
    nodeKinds: expandNodeKinds(spec.nodeKinds, spec.nodes),
    mechanics: parseMechanics(spec.mechanics),
    warmupMinutes: spec.warmupMinutes,
    minutes: spec.minutes,
    seed: spec.seed,
    ...(spec.outputCv !== undefined ? { outputCv: spec.outputCv } : {}),
  });
}

/** What every replay of a snapshot gives the simulator from it: the cluster as recorded (roles, mechanics, knobs in force, membership), its seed and warm-up. */
export function replayOptions(snapshot: Snapshot): Pick<SimOptions, 'roles' | 'mechanics' | 'initialKnobs' | 'seed' | 'warmupSeconds' | 'membership'> {
  return {
    roles: snapshot.roles,
    mechanics: snapshot.mechanics,
    ...(snapshot.knobs ? { initialKnobs: snapshot.knobs } : {}),
    seed: snapshot.seed,
    warmupSeconds: snapshot.warmupSeconds,
    membership: snapshot.membership,
  };
}

/** The knobs in force where a replay of `snapshot` starts (ctx.mechanics at t = 0): until a plan sets one, it stays so. */
export function snapshotKnobsAtStart(snapshot: Snapshot): CtxMechanics {
  return knobsAtStart(snapshot.mechanics, snapshot.knobs);
}
