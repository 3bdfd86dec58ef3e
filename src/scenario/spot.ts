import { Rng } from '../common/rng.js';
import type { MembershipChange } from '../sim/index.js';
import type { SpotSpec } from './schema.js';

/**
 * A spot-preemption timeline drawn from a seed: `losses` events, each
 * taking 1 to 3 (configurable) nodes at once for a few to tens of minutes.
 *
 * The shape follows what published spot-serving studies report about cloud
 * spot capacity (SpotServe, ASPLOS 2024; SkyServe, 2024; the spot
 * availability traces of "Can't Be Late", NSDI 2024): preemptions are bursty and
 * correlated, several instances of one pool go at once rather than one at a
 * time, and capacity comes back after minutes to tens of minutes. It is a
 * generator with those parameters, not a replay of any provider's trace.
 *
 * Loss start times are uniform in [fromMinute, toMinute]; each loss takes a
 * uniform whole number of nodes in `nodesPerLoss` among the nodes up at that
 * moment (never passing `maxDown` down at once), each for a uniform time in
 * `downMinutes`. Times are whole seconds. The draw depends only on the spec
 * and the node count, so a scenario's timeline is fixed by its file.
 */
export function generateSpotTimeline(spec: SpotSpec, nodes: number): MembershipChange[] {
  const rng = Rng.derive(spec.seed, 'spot-preemptions');
  const starts = Array.from({ length: spec.losses }, () => Math.round(rng.uniform(spec.fromMinute, spec.toMinute) * 60)).sort((a, b) => a - b);
  /** Node -> second it is back up (-1: never down). */
  const backAt = new Array<number>(nodes).fill(-1);
  const changes: MembershipChange[] = [];
  for (const at of starts) {
    // Strictly before: a node never goes down in the same second it comes back.
    const up = backAt.flatMap((t, node) => (t < at ? [node] : []));
    const down = nodes - up.length;
    const wanted = Math.round(rng.uniform(spec.nodesPerLoss[0] - 0.5, spec.nodesPerLoss[1] + 0.5));
    const take = Math.max(0, Math.min(wanted, spec.maxDown - down, up.length));
    for (let i = 0; i < take; i++) {
      const node = up.splice(Math.floor(rng.uniform(0, up.length)), 1)[0]!;
      const seconds = Math.round(rng.uniform(spec.downMinutes[0], spec.downMinutes[1]) * 60);
      backAt[node] = at + seconds;
      changes.push({ node, at, event: 'down' }, { node, at: at + seconds, event: 'up' });
    }
  }
  // Stable by time: a node's up always follows its down.
  return changes.sort((a, b) => a.at - b.at);
}
