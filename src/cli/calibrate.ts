import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { CALIBRATION_DOC, calibrate, parseSeedList, renderMarkdown, replaceCalibrationSection, reportGrids, reportJson, type CalibrationRun } from '../calibrate/index.js';
import { InputError, UsageError } from '../common/errors.js';
import { writeFileAtomic, type CliIO } from './io.js';
import { floatOption, intOption } from './options.js';
import { progressBar } from './progress.js';
import { renderTable } from './table.js';

interface CalibrateFlags {
  json: boolean;
  markdown: boolean;
  only?: string;
  updateDocs?: string | true;
  threads?: number;
  warmupMin?: number;
  minutes?: number;
  seed?: number;
  seeds?: string;
  targets?: string;
}

export function registerCalibrateCommand(program: Command, io: CliIO): void {
  program
    .command('calibrate')
    .description('Run the calibration rows of CALIBRATION.md (static-split sweeps, fixed-4P5D tables, micro figures) and compare with the published figures')
    .option('--json', 'print one JSON object {seeds, rows, sweeps, modelError}', false)
    .option('--markdown', 'print the tables as markdown (what --update-docs writes)', false)
    .option('--only <names>', 'run only these groups (comma-separated sweep or table ids, or micro)')
    .option('--update-docs [file]', `rewrite the calibration table between its markers (default ${CALIBRATION_DOC})`)
    .option('--threads <n>', 'worker threads (default: the machine\'s cores; 1 runs in this thread)', intOption('--threads', 1, 64))
    .option('--warmup-min <m>', 'override the warm-up minutes of every run (not the calibration setup)', floatOption('--warmup-min', 0))
    .option('--minutes <m>', 'override the scored minutes of every run (not the calibration setup)', floatOption('--minutes', 1e-9))
    .option('--seeds <list>', 'workload seeds, comma-separated (e.g. 1,2,3); every figure is the mean over them (default: the targets file\'s setup.seeds)')
    .option('--seed <n>', 'one seed: the same as --seeds N', intOption('--seed', 0))
    .option('--targets <file>', 'a targets file other than evaluator/calibration/targets.json')
    .action(async (flags: CalibrateFlags) => {
      if (flags.json && flags.markdown) throw new UsageError('give --json or --markdown, not both');
      if (flags.seed !== undefined && flags.seeds !== undefined) throw new UsageError('give --seeds or --seed, not both');
      const seeds = flags.seeds !== undefined ? parseSeedList(flags.seeds) : flags.seed !== undefined ? [flags.seed] : undefined;
      const overridden = flags.only !== undefined || flags.warmupMin !== undefined || flags.minutes !== undefined || seeds !== undefined || flags.targets !== undefined;
      if (flags.updateDocs !== undefined && overridden) {
        throw new UsageError('--update-docs writes the full calibration: drop --only, --warmup-min, --minutes, --seeds, --seed and --targets');
      }
      const doc = flags.updateDocs === true ? CALIBRATION_DOC : flags.updateDocs;
      // Check the file's markers before the long run, not after it.
      if (doc !== undefined) replaceCalibrationSection(readText(doc), '', doc);
      let bar: ReturnType<typeof progressBar> | undefined;
      const run = await calibrate({
        targetsFile: flags.targets,
        only: flags.only,
        threads: flags.threads,
        settings: {
          ...(flags.warmupMin !== undefined ? { warmupMinutes: flags.warmupMin } : {}),
          ...(flags.minutes !== undefined ? { minutes: flags.minutes } : {}),
          ...(seeds !== undefined ? { seeds } : {}),
        },
        onRunDone: (spec, outcome, done, total) =>
          (bar ??= progressBar(io, 'calibrate', total, { unit: 'runs' })).update(done, `${spec.workload} ${spec.agents} agents ${spec.split} ${spec.mechanics} (${outcome.wallSeconds.toFixed(1)} s)`),
      });
      bar?.finish();
      if (doc !== undefined) {
        writeFileAtomic(doc, replaceCalibrationSection(readText(doc), docsBody(run), doc));
        io.err(`calibrate: wrote the calibration section of ${doc} (${run.runs} runs, ${run.wallSeconds.toFixed(1)} s wall)\n`);
      }
      if (flags.json) io.out(JSON.stringify(reportJson(run.report)) + '\n');
      else if (flags.markdown) io.out(docsBody(run));
      else if (doc === undefined) io.out(formatText(run));
    });
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new InputError(`cannot read: ${(error as Error).message}`, { file });
  }
}

function setupLine(run: CalibrationRun): string {
  const { setup } = run.targets;
  const s = run.settings;
  return (
    `${setup.nodes} x ${setup.nodeKind}, closed loop, warm-up ${s.warmupMinutes} min, scored minutes ${s.warmupMinutes} to ${s.warmupMinutes + s.minutes}, ${seedsPhrase(s.seeds)}; ` +
    `${run.runs} simulation runs in ${run.wallSeconds.toFixed(1)} s wall`
  );
}

/** `seed 1`, or `seeds 1, 2, 3 (figures are means over them, ± the standard deviation)`. */
function seedsPhrase(seeds: readonly number[]): string {
  if (seeds.length === 1) return `seed ${seeds[0]}`;
  return `seeds ${seeds.join(', ')} (every figure is the mean over the ${seeds.length} seeds, ± their standard deviation)`;
}

function modelErrorLine(run: CalibrationRun): string {
  const me = run.report.modelError;
  if (!me) return 'iteration-time model error: not reported by the simulator (SimResult.learning absent)';
  const p = (x: number | null) => (x === null ? 'n/a' : `${x.toFixed(1)}%`);
  return (
    `iteration-time model error over ${me.runs} runs: mean ${p(me.mapePct.mean)} (prefill single ${p(me.mapePct.prefillSingle)}, batch ${p(me.mapePct.prefillBatch)}, decode ${p(me.mapePct.decode)})` +
    `${me.convergedAtSeconds !== null ? `; converged by ${me.convergedAtSeconds.toFixed(0)} s${run.settings.seeds.length > 1 ? ' (slowest run of each seed, mean over the seeds)' : ''}` : ''}`
  );
}

function formatText(run: CalibrationRun): string {
  const grids = reportGrids(run.report, run.targets);
  let text = `calibration: ${setupLine(run)}\n`;
  for (const g of grids) text += `\n${g.title}\n${renderTable(g.rows, g.header)}`;
  text += `\n${modelErrorLine(run)}\n`;
  const missed = run.report.rows.filter((r) => r.met === false).length + run.report.sweeps.filter((s) => !s.ok).length;
  const judged = run.report.rows.filter((r) => r.met !== null).length + run.report.sweeps.length;
  text += `targets met: ${judged - missed} of ${judged}${missed ? ` (${missed} missed)` : ''}\n`;
  return text;
}

function docsBody(run: CalibrationRun): string {
  const missed = run.report.rows.filter((r) => r.met === false).length + run.report.sweeps.filter((s) => !s.ok).length;
  const judged = run.report.rows.filter((r) => r.met !== null).length + run.report.sweeps.length;
  const head =
    `Produced by \`npm run calibrate:docs\` (\`autopoiesis calibrate --update-docs\`): ${setupLine(run)}. ` +
    `Error is (simulated - published) / published. Targets met: ${judged - missed} of ${judged}; ` +
    `rows marked MISSED do not reach their target. In the sweeps, * marks the simulated best split and † the published one.\n\n`;
  return head + renderMarkdown(reportGrids(run.report, run.targets)) + `\n${modelErrorLine(run)}.\n`;
}
