import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openLineageStore } from '../../src/store/index.js';
import { cli, evolveRun } from './fixtures.js';

/** The report's command line and the data it embeds (the browser test draws it). */
const dir = mkdtempSync(join(tmpdir(), 'report-cli-'));
const db = join(dir, 'evolve.db');

beforeAll(async () => {
  await evolveRun(db);
}, 120_000);

function embedded(file: string): Record<string, any> {
  const html = readFileSync(file, 'utf8');
  const m = /<script id="report-data" type="application\/json">(.*?)<\/script>/s.exec(html);
  if (!m) throw new Error('no report data in the page');
  return JSON.parse(m[1]!);
}

describe('autopoiesis report', () => {
  it('bad input: one line, exit 2, nothing written', async () => {
    const notSuite = join(dir, 'not-suite.json');
    writeFileSync(notSuite, JSON.stringify({ scenarios: [{ name: 'x' }] }));
    const notJson = join(dir, 'not-json.json');
    writeFileSync(notJson, 'suite output\n');
    const cases: [string[], RegExp][] = [
      [['--db', join(dir, 'missing.db')], /missing\.db: no such lineage database/],
      [['--db', db, '--run', '9'], /evolve\.db: field --run: no run 9/],
      [['--suite', notSuite], /not-suite\.json: field schedCost: /],
      [['--suite', notJson], /not-json\.json: not JSON/],
      [['--suite', join(dir, 'missing.json')], /missing\.json: no such suite file/],
      [['--db', db, '--suite', notSuite], /not-suite\.json: field/],
      [['--db', db, '--compare-db', db], /evolve\.db: field --compare-run: run 1 is not a serve run/],
      [['--compare-db', db], /--compare-db needs --db/],
      [[], /give --db FILE/],
    ];
    for (const [args, message] of cases) {
      const out = join(dir, 'out.html');
      const r = await cli(['report', ...args, '-o', out]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(existsSync(out), args.join(' ')).toBe(false);
    }
  });

  it('an evolve report embeds the lineage and replays that the store and evaluator give', async () => {
    const file = join(dir, 'report.html');
    const r = await cli(['report', '--db', db, '-o', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^wrote .*report\.html \(\d+ KB\)\n$/);
    const html = readFileSync(file, 'utf8');
    // Self-contained: the library is inlined and no script or stylesheet is loaded from elsewhere.
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=/i);
    expect(html).toContain('echarts');
    const { evolve } = embedded(file);
    const store = openLineageStore(db, { readonly: true });
    try {
      const best = store.best(1, 1)[0]!;
      expect(evolve.best).toEqual({ id: best.id, fitness: best.fitness });
      expect(evolve.lineage.map((n: { id: number }) => n.id)).toEqual(store.ancestry(best.id).map((a) => a.candidate.id));
      // Best so far never rises, and ends at each island's best.
      for (const c of evolve.curves) {
        const bests = c.points.map((p: { best: number }) => p.best);
        expect(bests).toEqual([...bests].sort((a, b) => b - a));
      }
      expect(Math.min(...evolve.curves.map((c: { points: { best: number }[] }) => c.points.at(-1)!.best))).toBe(best.fitness);
      // The replays score exactly what the evolution stored (same snapshot, same sandbox, same sched cost).
      const replayedBest = evolve.replays.find((p: { candidate: number }) => p.candidate === best.id);
      expect(replayedBest.tTotal).toBeCloseTo(best.fitness!, 9);
      expect(replayedBest.minutes.length).toBeGreaterThan(2);
      const stats = store.runCandidateStats(1);
      const seed = evolve.replays.find((p: { candidate: number }) => p.candidate === stats.seedsBest!.id);
      expect(seed.tTotal).toBeCloseTo(stats.seedsBest!.fitness, 9);
      const failed = Object.values(stats.failedByKind).reduce((n, k) => n + k, 0);
      expect(evolve.failures.filter((f: { status: string }) => f.status !== 'evaluated').reduce((n: number, f: { count: number }) => n + f.count, 0)).toBe(failed);
      // The archives are the checkpoint's.
      expect(evolve.archiveFromCheckpoint).toBe(true);
      expect(evolve.archives).toHaveLength(2);
    } finally {
      store.close();
    }
  });
});
