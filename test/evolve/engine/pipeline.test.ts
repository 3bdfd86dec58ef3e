import { copyFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { EvolutionRun, EvolveConfigSchema, type EvolveConfigInput } from '../../../src/evolve/engine/index.js';
import { needsCompiledWorkers, SMALL_RUN, tmpLineageDb } from './small-run.js';

needsCompiledWorkers();

const small: EvolveConfigInput = { ...SMALL_RUN, seed: 9 };

const tmpDb = () => tmpLineageDb('ap-pipeline-');

function lineage(db: string) {
  const d = new Database(db, { readonly: true });
  try {
    const candidates = d.prepare('SELECT iteration, island, mutator, code_hash, status, failure_kind, fitness, cell FROM candidates ORDER BY id').all();
    const migrations = d.prepare('SELECT iteration, from_island, to_island, candidate FROM migrations ORDER BY id').all();
    return { candidates, migrations };
  } finally {
    d.close();
  }
}

class Killed extends Error {}

/** Run to `iterations`; with killAfter, stop the process's part of the run right after that iteration is committed (as a SIGKILL would). */
async function evolve(config: EvolveConfigInput, db: string, resume = false, killAfter?: number) {
  const run = await EvolutionRun.open(EvolveConfigSchema.parse(config), db, resume);
  try {
    await run.run({
      onIteration: (p) => {
        if (p.iteration === killAfter) throw new Killed();
      },
    });
  } catch (error) {
    if (!(error instanceof Killed)) throw error;
  } finally {
    run.close();
  }
}

describe('pipelined iterations', () => {
  it('a run killed with a batch in flight, or ended and resumed with more iterations, writes the lineage of the run never stopped', async () => {
    const whole = tmpDb();
    await evolve({ ...small, iterations: 5 }, whole);
    const killed = tmpDb();
    await evolve({ ...small, iterations: 5 }, killed, false, 2);
    // The checkpoint of iteration 2 holds iteration 3's batch, already proposed and sent.
    const d = new Database(killed, { readonly: true });
    const pending = JSON.parse((d.prepare("SELECT value FROM run_state WHERE key = 'pending'").get() as { value: string }).value);
    d.close();
    expect(pending.iteration).toBe(3);
    expect(pending.drafts).toHaveLength(2);
    await evolve({ ...small, iterations: 5 }, killed, true);
    const a = lineage(whole);
    const b = lineage(killed);
    expect(a.candidates.length).toBeGreaterThan(6 + 5 * 2 - 1);
    expect(b).toEqual(a);

    // A run that ended (nothing in flight) and is resumed with more iterations: the next batch comes from the saved population.
    const extended = tmpDb();
    await evolve({ ...small, iterations: 2 }, extended);
    await evolve({ ...small, iterations: 5 }, extended, true);
    expect(lineage(extended)).toEqual(a);
  }, 240_000);

  it('knob searches read what earlier searches of the parent measured, and a resumed run reads it from the checkpoint', async () => {
    const knobs: EvolveConfigInput = { ...small, mutator: 'knob-search', knobReplays: 3, iterations: 5 };
    const whole = tmpDb();
    await evolve(knobs, whole);
    const killed = tmpDb();
    await evolve(knobs, killed, false, 2);
    const d = new Database(killed, { readonly: true });
    const memo = JSON.parse((d.prepare("SELECT value FROM run_state WHERE key = 'searchMemo'").get() as { value: string }).value);
    d.close();
    expect(memo.length).toBeGreaterThan(0);
    // The same checkpoint as a run of before tune's memo wrote it (key knobMemo, parents keyed by hash alone), resumed alike.
    const old = tmpDb();
    copyFileSync(killed, old);
    const o = new Database(old);
    const oldMemo = memo.map(([key, points]: [string, unknown]) => [key.replace(/^knobs:/, ''), points]);
    o.prepare("UPDATE run_state SET key = 'knobMemo', value = ? WHERE key = 'searchMemo'").run(JSON.stringify(oldMemo));
    o.close();
    await evolve(knobs, killed, true);
    expect(lineage(killed)).toEqual(lineage(whole));
    await evolve(knobs, old, true);
    expect(lineage(old)).toEqual(lineage(whole));
    // Some later search of a parent searched before read its pairs rather than replaying them.
    const w = new Database(whole, { readonly: true });
    const lines = (w.prepare("SELECT coalesce(failure_message, edit_summary) AS m FROM candidates WHERE mutator = 'knob-search'").all() as { m: string }[]).map((r) => r.m);
    w.close();
    expect(lines.some((m) => /known from earlier searches/.test(m))).toBe(true);
  }, 240_000);

  it('pipelined and one batch at a time: each deterministic, and the first iteration after the seeds is the same', async () => {
    const runs = await Promise.all(
      [true, true, false, false].map(async (pipeline) => {
        const db = tmpDb();
        await evolve({ ...small, iterations: 3, pipeline }, db);
        return lineage(db).candidates as { iteration: number }[];
      }),
    );
    expect(runs[1]).toEqual(runs[0]);
    expect(runs[3]).toEqual(runs[2]);
    // Iteration 1 is proposed from the seeds in both modes; iteration 2 onwards may differ (it is proposed one commit earlier).
    const upTo1 = (rows: { iteration: number }[]) => rows.filter((r) => r.iteration <= 1);
    expect(upTo1(runs[0]!)).toEqual(upTo1(runs[2]!));
  }, 240_000);
});
