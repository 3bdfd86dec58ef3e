import type { CandidateSummary, LineageStore, ValidationRecord } from '../store/index.js';

/** How `lineage` shows validation: each candidate's validation fitness, and a mark on those that overfit. */
export interface ValidationColumn {
  record(c: CandidateSummary): ValidationRecord | undefined;
  /**
   * Wins on training, loses on validation: its training fitness is below
   * (better than) its run's best seed's, and its validation fitness above
   * (worse than) the best seed's on validation.
   */
  overfit(c: CandidateSummary): boolean;
  cell(c: CandidateSummary): string;
  legend(run: number): string;
}

export function validationColumn(store: LineageStore): ValidationColumn {
  const byRun = new Map<number, { rows: Map<number, ValidationRecord>; seedTrain: number | null; seedVal: number | null }>();
  const runInfo = (run: number) => {
    let info = byRun.get(run);
    if (!info) {
      const rows = new Map(store.listValidations(run).map((r) => [r.candidate, r]));
      const seeds = store.runCandidateStats(run).seedsBest;
      let seedVal: number | null = null;
      for (const r of rows.values()) {
        if (r.fitness === null || store.getCandidate(r.candidate)?.mutator !== 'seed') continue;
        if (seedVal === null || r.fitness < seedVal) seedVal = r.fitness;
      }
      info = { rows, seedTrain: seeds?.fitness ?? null, seedVal };
      byRun.set(run, info);
    }
    return info;
  };
  const record = (c: CandidateSummary) => runInfo(c.run).rows.get(c.id);
  const overfit = (c: CandidateSummary) => {
    const info = runInfo(c.run);
    const v = info.rows.get(c.id);
    if (!v || c.fitness === null || info.seedTrain === null || info.seedVal === null) return false;
    return c.fitness < info.seedTrain && (v.fitness === null || v.fitness > info.seedVal);
  };
  return {
    record,
    overfit,
    cell: (c) => {
      const v = record(c);
      if (!v) return '-';
      return (v.fitness === null ? 'failed' : v.fitness.toFixed(4)) + (overfit(c) ? ' OVERFIT' : '');
    },
    legend: (run) => {
      const info = runInfo(run);
      if (info.rows.size === 0) return '';
      return `\nvalidation: mean T_total / the reference's on the validation snapshots (${info.rows.size} validated); best seed there ${info.seedVal?.toFixed(4) ?? '-'}. OVERFIT: better than the best seed on training, worse on validation.\n`;
    },
  };
}
