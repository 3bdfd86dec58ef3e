import type { CalibrationReport, RowResult, SweepResult } from './report.js';
import type { Published, Targets } from './targets-schema.js';
import { allSplits } from './targets.js';

/**
 * The report as plain grids of strings (one per section), so that the CLI
 * can print them as text tables and docs/calibration.md gets the same figures as
 * markdown.
 */
export interface Grid {
  title: string;
  header: string[];
  rows: string[][];
}

/** The leeway the best-split rule allows, as the sweep table's title says it; none when maxNodesAway is 0. */
function bestSplitLeeway(t: Targets): string {
  const { maxNodesAway, maxThroughputGap } = t.bestSplit;
  if (maxNodesAway === 0) return '';
  return `, or ${maxNodesAway} node${maxNodesAway === 1 ? '' : 's'} away within ${pct(maxThroughputGap, 0)} of its throughput`;
}

export function reportGrids(r: CalibrationReport, t: Targets): Grid[] {
  const grids: Grid[] = [];
  const n = r.seeds.length;
  const multi = n > 1;
  const over = multi ? ` (mean over ${n} seeds)` : '';
  if (r.sweeps.length > 0) {
    const splits = allSplits(t.setup.nodes);
    grids.push({
      title: `Static-split sweeps: throughput (req/s) per split${over}; the simulated best must be the published one${bestSplitLeeway(t)}`,
      header: ['sweep', 'published best', 'simulated best', ...splits, ...(multi ? ['seeds with the published best'] : []), 'target'],
      rows: r.sweeps.map((s) => [
        s.title,
        s.publishedBest,
        s.simulatedBest,
        ...splits.map((sp) => {
          const v = s.throughputBySplit[sp];
          if (v === undefined) return '';
          const mark = sp === s.simulatedBest ? '*' : sp === s.publishedBest ? '†' : '';
          return `${v.toFixed(2)}${mark}`;
        }),
        ...(multi ? [seedsAgreeing(s)] : []),
        s.ok ? 'met' : `MISSED (${s.nodesAway} node(s) away${s.throughputGap !== null ? `, published split ${gapText(s.throughputGap, multi ? s.throughputGapSd : null)} below` : ''})`,
      ]),
    });
  }
  const groups = new Map<string, RowResult[]>();
  for (const row of r.rows) {
    let list = groups.get(row.group);
    if (!list) groups.set(row.group, (list = []));
    list.push(row);
  }
  for (const [group, rows] of groups) {
    const sweep = t.sweeps.find((s) => s.id === group);
    const table = t.tables.find((x) => x.id === group);
    const title = sweep
      ? `Best static split, ${sweep.title}, at the published best split ${sweep.publishedBest}`
      : table
        ? `${table.title}, ${table.split}`
        : 'Micro figures';
    const withColumn = table !== undefined;
    grids.push({
      title,
      header: [...(withColumn ? ['column'] : []), 'figure', 'published', multi ? 'simulated (mean ± sd)' : 'simulated', 'error', 'target', 'met', ...(multi ? ['seeds met'] : [])],
      rows: rows.map((row) => [
        ...(withColumn ? [table!.columns.find((c) => c.id === row.column)?.title ?? row.column ?? ''] : []),
        row.unit ? `${row.label} (${row.unit})` : row.label,
        fmtPublished(row.published),
        row.simulated === null ? 'n/a' : multi && row.spread ? `${fmt(row.simulated)} ± ${fmt(row.spread.sd)}` : fmt(row.simulated),
        row.relError === null ? '' : signedPct(row.relError),
        row.target,
        row.met === null ? '' : row.met ? 'yes' : 'MISSED',
        ...(multi ? [row.seedsMet === null ? '' : `${row.seedsMet}/${n}`] : []),
      ]),
    });
  }
  return grids;
}

/** `1/4 (5P4D ×3)`: seeds whose own best split is the published one, and where the others peak. */
function seedsAgreeing(s: SweepResult): string {
  const others = new Map<string, number>();
  for (const b of s.bestBySeed) if (b !== s.publishedBest) others.set(b, (others.get(b) ?? 0) + 1);
  const rest = [...others].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([split, k]) => `${split} ×${k}`);
  return `${s.seedsAgreeing}/${s.bestBySeed.length}${rest.length ? ` (${rest.join(', ')})` : ''}`;
}

/** `1.3%`, or with the seed-to-seed spread of the paired gap `1.3% ± 2.0%`. */
function gapText(gap: number, sd: number | null): string {
  return sd === null ? pct(gap, 1) : `${pct(gap, 1)} ± ${pct(sd, 1)}`;
}

/** Markdown tables of the grids, with `###`-less bold titles (docs/calibration.md supplies the heading). */
export function renderMarkdown(grids: readonly Grid[]): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|');
  return grids
    .map((g) => {
      const lines = [`**${g.title}**`, '', `| ${g.header.map(esc).join(' | ')} |`, `|${g.header.map(() => '---').join('|')}|`];
      for (const row of g.rows) lines.push(`| ${row.map(esc).join(' | ')} |`);
      return lines.join('\n') + '\n';
    })
    .join('\n');
}

function fmtPublished(p: Published): string {
  return typeof p === 'number' ? fmt(p) : `${fmt(p.min)} to ${fmt(p.max)}`;
}

/** Up to 3 significant decimals, thousands grouped for big numbers. */
export function fmt(x: number): string {
  const a = Math.abs(x);
  if (a >= 1000) return Math.round(x).toLocaleString('en-US');
  if (a >= 100) return x.toFixed(1);
  if (a >= 10) return x.toFixed(2);
  return x.toFixed(a >= 1 || a === 0 ? 2 : 3);
}

function pct(x: number, digits: number): string {
  return `${(x * 100).toFixed(digits)}%`;
}

function signedPct(x: number): string {
  const s = (x * 100).toFixed(1);
  return x > 0 ? `+${s}%` : `${s}%`;
}
