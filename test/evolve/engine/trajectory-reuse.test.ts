import { describe, expect, it } from 'vitest';
import { EvolutionRun, EvolveConfigSchema, type EvolveConfigInput } from '../../../src/evolve/engine/index.js';
import { candidateRows, needsCompiledWorkers, SMALL_RUN, tmpLineageDb } from './small-run.js';

needsCompiledWorkers();

async function evolve(config: EvolveConfigInput) {
  const db = tmpLineageDb('ap-reuse-');
  const run = await EvolutionRun.open(EvolveConfigSchema.parse(config), db, false);
  try {
    return { summary: await run.run(), db };
  } finally {
    run.close();
  }
}

function lineage(db: string) {
  return candidateRows(db, 'iteration, island, mutator, code_hash, status, failure_kind, fitness, breakdown, metrics, features, cell');
}

describe('evolve with trajectory reuse', () => {
  it('gives the lineage a run that simulates every candidate gives, under the counted cost', async () => {
    // The counted cost: children's op counts differ from their parents', so both reuse paths run (costs summed again; simulated after a divergence).
    const config = { ...SMALL_RUN, schedCost: 'counted', iterations: 6, seed: 7 };
    const reusing = await evolve(config);
    const simulating = await evolve({ ...config, trajectoryCacheMb: 0 });
    expect(reusing.summary.trajectories!.reused).toBeGreaterThan(0);
    expect(reusing.summary.trajectories!.diverged).toBeGreaterThan(0);
    expect(simulating.summary.trajectories).toBeUndefined();
    const a = lineage(reusing.db);
    const b = lineage(simulating.db);
    expect(a.length).toBeGreaterThan(6 + 6);
    for (let i = 0; i < a.length; i++) expect(a[i], `candidate ${i}`).toEqual(b[i]);
    expect(a.length).toBe(b.length);
  }, 300_000);
});
