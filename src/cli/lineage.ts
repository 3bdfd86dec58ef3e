import type { Command } from 'commander';
import { openLineageStore, type CandidateSummary, type LineageStore } from '../store/index.js';
import { InputError, UsageError } from '../common/errors.js';
import { writeFileAtomic, type CliIO } from './io.js';
import { intOption } from './options.js';
import { renderTable } from './table.js';
import { unifiedDiff } from './diff.js';
import { validationColumn, type ValidationColumn } from './lineage-validation.js';

/** `lineage`, `show` and `export`: reading what evolution did. */
export function registerLineageCommands(program: Command, io: CliIO): void {
  program
    .command('lineage')
    .description('List the best candidates of a run, or the ancestry or children of one candidate')
    .requiredOption('--db <file>', 'lineage database')
    .option('--run <id>', 'run id (default: the latest)', intOption('--run', 1))
    .option('--best <n>', 'the n best evaluated candidates', intOption('--best', 1, 100_000), 10)
    .option('--ancestry <id>', "the candidate's ancestors, nearest first", intOption('--ancestry', 1))
    .option('--children <id>', "the candidate's children (and where it inspired others)", intOption('--children', 1))
    .option('--json', 'print JSON', false)
    .action((flags: { db: string; run?: number; best: number; ancestry?: number; children?: number; json: boolean }) => {
      withStore(flags.db, (store) => {
        if (flags.ancestry !== undefined) {
          requireCandidate(store, flags.ancestry, flags.db);
          const rows = store.ancestry(flags.ancestry);
          if (flags.json) return io.out(JSON.stringify(rows) + '\n');
          const val = validationColumn(store);
          io.out(renderTable(rows.map((r) => [r.depth, ...summaryCells(r.candidate, val), r.parents.join(',') || '-']), ['depth', ...SUMMARY_HEAD, 'parents']));
          return;
        }
        if (flags.children !== undefined) {
          requireCandidate(store, flags.children, flags.db);
          const rows = store.children(flags.children);
          if (flags.json) return io.out(JSON.stringify(rows) + '\n');
          const val = validationColumn(store);
          io.out(renderTable(rows.map((r) => [r.role, ...summaryCells(r.candidate, val)]), ['role', ...SUMMARY_HEAD]));
          return;
        }
        const run = flags.run ?? store.latestRun()?.id;
        if (run === undefined || !store.getRun(run)) throw new InputError(run === undefined ? 'the database has no run' : `no run ${run}`, { file: flags.db, field: '--run' });
        const rows = store.best(run, flags.best);
        const val = validationColumn(store);
        if (flags.json) return io.out(JSON.stringify({ run, best: rows.map((r) => ({ ...r, validation: val.record(r) ?? null, overfit: val.overfit(r) })) }) + '\n');
        io.out(`run ${run}: ${store.countCandidates(run)} candidates\n\n` + renderTable(rows.map((r) => summaryCells(r, val)), SUMMARY_HEAD) + val.legend(run));
      });
    });

  program
    .command('show <id>')
    .description("Print a candidate's code, scores and parents; --diff shows the change from its parent")
    .requiredOption('--db <file>', 'lineage database')
    .option('--diff', 'print the unified diff against its (first) parent instead of the code', false)
    .option('--json', 'print JSON', false)
    .action((idText: string, flags: { db: string; diff: boolean; json: boolean }) => {
      const id = parseCandidateId(idText);
      withStore(flags.db, (store) => {
        const c = requireCandidate(store, id, flags.db);
        const parent = c.parents.find((p) => p.role === 'parent');
        const parentCode = parent ? store.getCandidate(parent.id)!.code : '';
        if (flags.json) return io.out(JSON.stringify(flags.diff ? { ...c, diff: unifiedDiff(parentCode, c.code, `#${parent?.id ?? 'none'}`, `#${c.id}`) } : c) + '\n');
        const head =
          `candidate #${c.id} (run ${c.run}, iteration ${c.iteration}, island ${c.island}, ${c.mutator}${c.model ? `/${c.model}` : ''})\n` +
          `status ${c.status}${c.failureKind ? ` (${c.failureKind}: ${c.failureMessage})` : ''}; ${c.snapshots ? 'train fitness' : 'T_total'} ${c.fitness?.toFixed(c.snapshots ? 4 : 3) ?? '-'}${c.snapshots ? ' x reference' : ' s'}; cell ${c.cell ?? '-'}\n` +
          (c.snapshots ? `train snapshots: ${c.snapshots.map((x) => `${x.label}: T_total ${x.tTotal.toFixed(2)} s (${x.ratio.toFixed(4)})`).join('; ')}\n` : '') +
          (c.validation
            ? `validation fitness ${c.validation.fitness?.toFixed(4) ?? `failed (${c.validation.failure})`} x reference (after iteration ${c.validation.iteration}): ${c.validation.snapshots.map((x) => `${x.label}: T_total ${x.tTotal.toFixed(2)} s (${x.ratio.toFixed(4)})`).join('; ')}\n`
            : '') +
          `edit: ${c.editSummary ?? '-'}\n` +
          `parents: ${c.parents.map((p) => `#${p.id} (${p.role})`).join(', ') || 'none'}\n` +
          (c.breakdown ? `breakdown: ${Object.entries(c.breakdown).map(([k, v]) => `${k} ${Number(v).toFixed(3)}`).join(', ')}\n` : '');
        io.out(head + '\n' + (flags.diff ? unifiedDiff(parentCode, c.code, parent ? `#${parent.id}` : '(no parent)', `#${c.id}`) : c.code) + '\n');
      });
    });

  program
    .command('export <id>')
    .description("Write a candidate's code to a policy file (e.g. to deploy or replay it)")
    .requiredOption('--db <file>', 'lineage database')
    .requiredOption('-o, --output <file>', 'policy file to write')
    .action((idText: string, flags: { db: string; output: string }) => {
      const id = parseCandidateId(idText);
      withStore(flags.db, (store) => {
        const c = requireCandidate(store, id, flags.db);
        if (!c.code) throw new InputError(`candidate ${id} has no code (its mutation failed)`, { file: flags.db });
        writeFileAtomic(flags.output, c.code.endsWith('\n') ? c.code : c.code + '\n');
        io.out(`wrote candidate #${id} (T_total ${c.fitness?.toFixed(3) ?? '-'} s) to ${flags.output}\n`);
      });
    });
}

const SUMMARY_HEAD = ['id', 'iter', 'island', 'mutator', 'status', 'fitness', 'validation', 'cell', 'edit'];

function summaryCells(c: CandidateSummary, val: ValidationColumn): (string | number)[] {
  const fitness = c.fitness === null ? '-' : c.fitness.toFixed(c.fitness < 10 ? 4 : 3);
  return [c.id, c.iteration, c.island, c.mutator, c.status + (c.failureKind ? `:${c.failureKind}` : ''), fitness, val.cell(c), c.cell ?? '-', (c.editSummary ?? '').slice(0, 70)];
}

function withStore(path: string, fn: (store: LineageStore) => void): void {
  const store = openLineageStore(path, { readonly: true });
  try {
    fn(store);
  } finally {
    store.close();
  }
}

function requireCandidate(store: LineageStore, id: number, db: string) {
  const c = store.getCandidate(id);
  if (!c) throw new InputError(`no candidate ${id}`, { file: db });
  return c;
}

/** A candidate id argument; commander does not parse positional arguments for us. */
function parseCandidateId(text: string): number {
  const id = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(id) || id < 1) throw new UsageError(`candidate id must be a whole number >= 1, got "${text}"`);
  return id;
}
