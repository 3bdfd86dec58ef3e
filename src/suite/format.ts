import type { ScenarioReport, SuiteReport } from './run-suite.js';

const HEADER = ['policy', 'req/s', 'vs static %', 'gap to oracle %', 'TTFT P95 s', 'E2E mean s', 'T_total s', 'transitions', 'final split'];

function rows(s: ScenarioReport): (string | number)[][] {
  return s.policies.map((p) => [
    p.policy,
    p.throughput.toFixed(3),
    signed(p.vsStaticPct),
    p.oracleGapPct.toFixed(1),
    p.ttftP95.toFixed(2),
    p.e2eMean.toFixed(2),
    p.tTotal.toFixed(1),
    p.transitions,
    p.finalSplit + (p.failures > 0 ? ` (${p.failures} failures)` : '') + (p.drained ? '' : ' (cap)'),
  ]);
}

function oracleLine(s: ScenarioReport): string {
  const b = s.oracle.staticBest;
  return `best static ${b.split} ${b.throughput.toFixed(3)} req/s (TTFT P95 ${b.ttftP95.toFixed(2)} s, of ${s.oracle.candidates} splits); window oracle ${s.oracle.window.throughput.toFixed(3)} req/s`;
}

const signed = (x: number) => (x > 0 ? `+${x.toFixed(1)}` : x.toFixed(1));

/** Plain text: one aligned table per scenario, its oracles above it. */
export function formatSuiteText(report: SuiteReport, renderTable: (rows: (string | number)[][], header: string[]) => string): string {
  return report.scenarios
    .map((s) => `${s.name} (seed ${s.seed}): ${oracleLine(s)}\n\n` + (s.policies.length ? renderTable(rows(s), HEADER) : ''))
    .join('\n');
}

/** Markdown: one table, a row per scenario and policy, the two oracles as rows of their own. */
export function formatSuiteMarkdown(report: SuiteReport): string {
  const header = ['scenario', ...HEADER];
  const out = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`];
  for (const s of report.scenarios) {
    const b = s.oracle.staticBest;
    out.push(`| ${s.name} | *best static ${b.split}* | ${b.throughput.toFixed(3)} | 0.0 | | ${b.ttftP95.toFixed(2)} | ${b.e2eMean.toFixed(2)} | ${b.tTotal.toFixed(1)} | 0 | ${b.split} |`);
    out.push(`| ${s.name} | *window oracle* | ${s.oracle.window.throughput.toFixed(3)} | | 0.0 | | | | | |`);
    for (const r of rows(s)) out.push(`| ${s.name} | ${r.join(' | ')} |`);
  }
  return out.join('\n') + '\n';
}
