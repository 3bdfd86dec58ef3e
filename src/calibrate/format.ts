import type { CalibrationReport, RowResult } from './report.js';
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
  if (r.sweeps.length > 0) {
    const splits = allSplits(t.setup.nodes);
    grids.push({
      title: `Static-split sweeps: throughput (req/s) per split; the simulated best must be the published one${bestSplitLeeway(t)}`,
      header: ['sweep', 'published best', 'simulated best', ...splits, 'target'],
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
        s.ok ? 'met' : `MISSED (${s.nodesAway} node(s) away${s.throughputGap !== null ? `, published split ${pct(s.throughputGap, 1)} below` : ''})`,
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
      header: [...(withColumn ? ['column'] : []), 'figure', 'published', 'simulated', 'error', 'target', 'met'],
      rows: rows.map((row) => [
        ...(withColumn ? [table!.columns.find((c) => c.id === row.column)?.title ?? row.column ?? ''] : []),
        row.unit ? `${row.label} (${row.unit})` : row.label,
        fmtPublished(row.published),
        row.simulated === null ? 'n/a' : fmt(row.simulated),
        row.relError === null ? '' : signedPct(row.relError),
        row.target,
        row.met === null ? '' : row.met ? 'yes' : 'MISSED',
      ]),
    });
  }
  return grids;
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
