import { buildSnapshot } from '../../src/evaluate/index.js';
import { MECHANICS_PRESETS, parseSplit } from '../../src/sim/index.js';

/** A small cc window (40 agents, 1 + 4 minutes, 4P5D on 9 gb300 nodes) the evaluator tests replay: its spec, and the snapshot. */
export const smallCcSpec = {
  workload: 'cc',
  agents: 40,
  roles: parseSplit('4P5D', 9),
  nodeKinds: Array(9).fill('gb300'),
  mechanics: MECHANICS_PRESETS['evolving-infra'],
  warmupMinutes: 1,
  minutes: 4,
  seed: 3,
};
export const smallCcSnapshot = buildSnapshot(smallCcSpec);
