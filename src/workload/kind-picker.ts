import { Rng } from '../common/rng.js';
import type { WorkloadPreset } from './preset-schema.js';

/**
 * Which kind a new agent is: drawn from the weights of the phase active when
 * it starts. The draw depends only on the seed and the agent's number, so
 * the same agent gets the same kind whatever the latencies were, as long as
 * it starts in the same phase.
 */
export function makeKindPicker(preset: WorkloadPreset, seed: number): (agent: number, t: number) => string {
  const phases = preset.phases.map((p) => {
    const entries = Object.entries(p.mix).filter(([, w]) => w > 0);
    const total = entries.reduce((s, [, w]) => s + w, 0);
    return { start: p.startSeconds, names: entries.map(([n]) => n), cumulative: cumulate(entries.map(([, w]) => w / total)) };
  });
  return (agent, t) => {
    let phase = phases[0]!;
    for (const p of phases) if (p.start <= t) phase = p;
    if (phase.names.length === 1) return phase.names[0]!;
    const u = Rng.derive(seed, `kind/${agent}`).next();
    const i = phase.cumulative.findIndex((c) => u < c);
    return phase.names[i < 0 ? phase.names.length - 1 : i]!;
  };
}

function cumulate(xs: number[]): number[] {
  let s = 0;
  return xs.map((x) => (s += x));
}
