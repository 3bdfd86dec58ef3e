import { readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { openLineageStore, type CandidateRef, type NewCandidate } from '../../src/store/index.js';
import { evaluated, failed, tempDbPath } from './helpers.js';

const doc = readFileSync(new URL('../../docs/lineage-schema.md', import.meta.url), 'utf8');
const sqlBlocks = [...doc.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1]!.trim());

/**
 * A database shaped like a real run, so every example in the doc has rows to
 * return: run 1 with 4 islands x 5 iterations (ids 1-20), crossovers,
 * inspirations, failures of several kinds, migrations, a cycle and
 * deployments with a rollback; and a second run the examples must not mix in.
 */
let path: string;
beforeAll(() => {
  path = tempDbPath();
  const store = openLineageStore(path);
  const run = store.createRun({ name: 'docs', config: { islands: 4 }, seed: 1 });
  expect(run).toBe(1);
  let previous = store.commitIteration(
    run,
    0,
    [0, 1, 2, 3].map((island) => evaluated({ island, mutator: 'seed', fitness: 200 + island })),
    (ids) => ({ archive: ids }),
  );
  for (let iteration = 1; iteration <= 4; iteration++) {
    const batch: NewCandidate<CandidateRef>[] = [0, 1, 2, 3].map((island) => {
      const parents = island === 3 ? [previous[3]!, previous[2]!] : [previous[island]!];
      const base = { island, parents, inspirations: [previous[(island + 1) % 4]!], editSummary: `tweak ${iteration}.${island}` };
      if ((iteration + island) % 4 === 0) return failed(iteration % 2 ? 'timeout' : 'throw', base);
      return evaluated({ ...base, mutator: island % 2 ? 'llm' : 'structural', model: island % 2 ? 'qwen-coder' : null, promptTokens: island % 2 ? 1500 : null, completionTokens: island % 2 ? 200 : null, fitness: 200 - iteration * 10 - island });
    });
    const ids = store.commitIteration(run, iteration, batch, (newIds) => ({ archive: newIds }), [{ fromIsland: 1, toIsland: 2, candidate: { batch: 1 } }]);
    previous = ids;
  }
  const cycle = store.insertCycle({ run, label: 'window 600-900s', snapshot: { from: 600, to: 900 }, startedAt: 900 });
  store.finishCycle(cycle, { endedAt: 950, status: 'finished', winner: 12 });
  store.insertDeployment({ run, candidate: 1, deployedAt: 0, reason: 'initial policy' });
  const d = store.insertDeployment({ run, cycle, candidate: 12, deployedAt: 955, fitnessOnSnapshot: 170, replacedCandidate: 1, reason: 'beat deployed by 15%' });
  store.markRolledBack(d, 1500, 'p95 TTFT regressed');
  const other = store.createRun({ config: {}, seed: 2 });
  store.commitIteration(other, 0, [evaluated({ fitness: 1 })], {});
  store.close();
});

describe('docs/lineage-schema.md', () => {
  it('has example queries', () => {
    expect(sqlBlocks.length).toBeGreaterThanOrEqual(5);
    expect(sqlBlocks.some((sql) => sql.startsWith('WITH RECURSIVE ancestry(id, depth) AS ('))).toBe(true);
  });

  it('every ```sql example is one statement that runs and returns rows', () => {
    const db = new Database(path, { readonly: true });
    for (const sql of sqlBlocks) {
      // prepare() refuses more than one statement, so each block is exactly one query.
      const rows = db.prepare(sql).all();
      expect(rows.length, sql).toBeGreaterThan(0);
    }
    db.close();
  });

  it('the ancestry example agrees with the store API', () => {
    const db = new Database(path, { readonly: true });
    const sql = sqlBlocks.find((s) => s.startsWith('WITH RECURSIVE ancestry(id, depth)'))!;
    const rows = db.prepare(sql).all() as { id: number; depth: number }[];
    db.close();
    const store = openLineageStore(path, { readonly: true });
    expect(rows.map((r) => [r.id, r.depth])).toEqual(store.ancestry(12).map((e) => [e.candidate.id, e.depth]));
    expect(Math.max(...rows.map((r) => r.depth))).toBe(2);
    store.close();
  });

  it('documents every table and every column, and nothing that does not exist', () => {
    const db = new Database(path, { readonly: true });
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").pluck().all() as string[];
    for (const table of tables) {
      const section = doc.split(`### \`${table}\``)[1]?.split('\n### ')[0];
      expect(section, `no section for table ${table}`).toBeDefined();
      const documented = [...section!.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]);
      const actual = (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name);
      expect(documented, table).toEqual(actual);
    }
    db.close();
  });
});
