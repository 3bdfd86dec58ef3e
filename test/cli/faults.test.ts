import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { checkDatabase, runFaults } from '../../bench/faults.js';

describe('serve under SIGKILL (a short bench:faults)', () => {
  it('5 kills at moments chosen from the database: every check holds after each, and resume loses no request', async () => {
    const lines: string[] = [];
    const report = await runFaults({ kills: 5, log: (l) => lines.push(l) });
    console.log(lines.join('\n'));
    expect(report.kills.map((k) => k.problems)).toEqual([[], [], [], [], []]);
    expect(report.ok).toBe(true);
    for (const k of report.kills) {
      expect(k.dropped).toBe(0);
      expect(k.arrived).toBeGreaterThan(0);
    }
    // Resuming re-serves the run from where it was: it only grows.
    const reached = report.kills.map((k) => k.at.simSeconds);
    for (let i = 1; i < reached.length; i++) expect(reached[i]!).toBeGreaterThan(reached[i - 1]!);

    // The checks can fail: a deployment with no staged file behind it is reported.
    const db = join(report.dir, 'live.db');
    const copy = join(report.dir, 'copy.db');
    const source = new Database(db, { readonly: true });
    await source.backup(copy);
    source.close();
    const d = new Database(copy);
    const candidate = d.prepare('SELECT max(id) FROM candidates').pluck().get() as number;
    d.prepare('INSERT INTO deployments (run, candidate, deployed_at, reason) VALUES (1, ?, 1e6, ?)').run(candidate, 'not staged');
    d.close();
    const checked = checkDatabase(copy, join(report.dir, 'policies', 'staging'));
    expect(checked.problems.join('; ')).toMatch(/have no file in deployed\//);
  }, 300_000);
});
