import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/common/errors.js';
import { allSplits, defaultSettings, groupNames, loadTargets, planRuns, selectGroups, TARGETS_FILE } from '../../src/calibrate/index.js';
import { canonicalMechanics } from '../../src/calibrate/plan.js';

const targets = loadTargets();
/** The design document the targets are transcribed from (the repository's own copy). */
const CALIBRATION_MD = fileURLToPath(new URL('../../docs/design/CALIBRATION.md', import.meta.url));

function errorOf(fn: () => unknown): InputError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    return error as InputError;
  }
  throw new Error('expected an InputError');
}

/** Rows of the markdown table that follows a `## heading` (header and separator dropped). */
function tableAfter(md: string, heading: string): string[][] {
  const start = md.indexOf(heading);
  expect(start, heading).toBeGreaterThanOrEqual(0);
  const lines = md.slice(start).split('\n').slice(1);
  const rows: string[][] = [];
  let inTable = false;
  for (const line of lines) {
    if (line.startsWith('|')) {
      inTable = true;
      rows.push(line.split('|').slice(1, -1).map((c) => c.trim()));
    } else if (inTable) break;
  }
  return rows.slice(2);
}

describe('calibration targets file', () => {
  it('parses, with 6 sweeps, the two fixed-4P5D tables and the micro figures', () => {
    expect(targets.setup).toMatchObject({ nodes: 9, nodeKind: 'gb300', warmupMinutes: 30, scoredMinutes: 55 });
    expect(targets.sweeps).toHaveLength(6);
    expect(targets.tables.map((t) => [t.id, t.columns.length])).toEqual([
      ['cc126-4p5d', 2],
      ['cc126-fetch', 2],
    ]);
    expect(targets.tables[0]!.columns.map((c) => Object.keys(c.figures).length)).toEqual([9, 9]);
    expect(targets.tables[1]!.columns.map((c) => Object.keys(c.figures).length)).toEqual([6, 6]);
    expect(groupNames(targets)).toEqual([...targets.sweeps.map((s) => s.id), 'cc126-4p5d', 'cc126-fetch', 'micro']);
    expect(allSplits(9)).toEqual(['1P8D', '2P7D', '3P6D', '4P5D', '5P4D', '6P3D', '7P2D', '8P1D']);
  });

  it('needs 51 distinct runs per seed: a row at the published best split and the fetch-at-start column reuse sweep and table runs', () => {
    const all = planRuns(targets, selectGroups(targets), { ...defaultSettings(targets), seeds: [1] });
    expect(all).toHaveLength(6 * 8 + 3);
    expect(new Set(all.map((r) => r.key)).size).toBe(all.length);
    const fetchOnly = planRuns(targets, selectGroups(targets, 'cc126-fetch'), defaultSettings(targets));
    const fixed = planRuns(targets, selectGroups(targets, 'cc126-4p5d'), defaultSettings(targets));
    expect(fetchOnly.map((r) => r.key)).toContain(fixed.find((r) => r.mechanics === 'sglang-pd')!.key);
  });

  it('tells runs apart by every mechanic, and a preset from its own values written out', () => {
    expect(canonicalMechanics('sglang-pd,fetch=at-start,affinityView=cache')).toBe(canonicalMechanics('sglang-pd'));
    expect(canonicalMechanics('sglang-pd,affinityView=gateway')).not.toBe(canonicalMechanics('sglang-pd'));
    expect(canonicalMechanics('sglang-pd,decodeKv=gpu')).not.toBe(canonicalMechanics('sglang-pd'));
  });

  it('matches the rows and figures of docs/design/CALIBRATION.md', () => {
    const md = readFileSync(CALIBRATION_MD, 'utf8');
    const best = tableAfter(md, '## Best static split');
    expect(best).toHaveLength(targets.sweeps.length);
    best.forEach((row, i) => {
      const sweep = targets.sweeps[i]!;
      const [workload, system, split, thr, ttft, ttft95, e2e, e2e95] = row;
      expect(workload).toBe(`${sweep.workload} (${sweep.agents})`);
      expect(system).toBe(sweep.mechanics === 'sglang-pd' ? 'SGLang PD' : 'Evolving Infra');
      expect(split).toBe(sweep.publishedBest);
      expect([thr, ttft, ttft95, e2e, e2e95].map(Number)).toEqual([
        sweep.figures.throughput,
        sweep.figures['ttft.mean'],
        sweep.figures['ttft.p95'],
        sweep.figures['e2e.mean'],
        sweep.figures['e2e.p95'],
      ]);
    });
    // "a / b" cells hold two figures, in the order of the targets' figures.
    const fixed = tableAfter(md, '## Fixed 4P5D');
    expect(fixed).toHaveLength(6);
    const [sglang, ei] = targets.tables[0]!.columns;
    const fig = (f: Record<string, number | undefined>) => [f.throughput, f['ttft.mean'], f['ttft.p95'], f['e2e.mean'], f['e2e.p95'], f['kvHit.actual'], f['kvHit.ideal'], f.lostKvReuse, f.uncachedTokens];
    const byColumn = (col: number) => fixed.flatMap((r) => r[col]!.split('/').map((x) => Number(x.replace(/,/g, '').trim())));
    expect(byColumn(1)).toEqual(fig(sglang!.figures));
    expect(byColumn(2)).toEqual(fig(ei!.figures));
    const fetch = tableAfter(md, 'Same split and workload');
    expect(fetch).toHaveLength(4);
    for (const [i, column] of targets.tables[1]!.columns.entries()) {
      const f = column.figures;
      const col = fetch.flatMap((r) => r[i + 1]!.split('/').map((x) => Number(x.trim())));
      expect(col).toEqual([f.throughput, f.prefillIdle, f['ttft.mean'], f['ttft.p95'], f['e2e.mean'], f['e2e.p95']]);
    }
  });

  it('rejects a bad targets file naming the file and field', () => {
    const dir = mkdtempSync(join(tmpdir(), 'targets-'));
    const raw = JSON.parse(readFileSync(TARGETS_FILE, 'utf8'));
    const write = (name: string, body: unknown) => {
      const file = join(dir, name);
      writeFileSync(file, JSON.stringify(body));
      return file;
    };
    const unknownMetric = write('metric.json', { ...raw, targets: { ...raw.targets, latency: { rel: 0.1 } } });
    expect(errorOf(() => loadTargets(unknownMetric)).message).toMatch(/field targets\.latency: unknown metric/);
    const badFigure = structuredClone(raw);
    badFigure.sweeps[0].figures.tpt = 1;
    expect(errorOf(() => loadTargets(write('figure.json', badFigure))).message).toContain('sweeps.0.figures');
    const badSplit = structuredClone(raw);
    badSplit.sweeps[1].publishedBest = '4P4D';
    expect(errorOf(() => loadTargets(write('split.json', badSplit))).message).toContain('field sweeps.1.publishedBest: split 4P4D does not fit 9 nodes');
    const badRef = structuredClone(raw);
    badRef.micro.find((m: { measure: { kind: string } }) => m.measure.kind === 'table-run').measure.column = 'nope';
    expect(errorOf(() => loadTargets(write('ref.json', badRef))).message).toContain('has no column "nope"');
    writeFileSync(join(dir, 'broken.json'), '{"source":');
    expect(errorOf(() => loadTargets(join(dir, 'broken.json'))).message).toContain('not valid JSON');
  });
});
