import type { Command } from 'commander';
import { UsageError } from '../common/errors.js';
import { DEFAULT_IMPORT_MODEL, formatTrace, generateTrace, IMPORT_FORMATS, importTrace, loadWorkloadPreset, readTrace, traceStats, type TraceStats } from '../workload/index.js';
import { writeFileAtomic, type CliIO } from './io.js';
import { floatOption, intOption } from './options.js';

interface GenOptions {
  workload: string;
  agents?: number;
  arrivalRate?: number;
  minutes: number;
  seed: number;
  output: string;
}

interface ImportFlags {
  format: string;
  output: string;
  model: string;
  /** false with --no-infer. */
  infer: boolean;
  limit?: number;
}

/** `autopoiesis trace gen|stats|import`: record a preset run as a JSONL trace, summarise a trace, import a public one. */
export function registerTraceCommand(program: Command, io: CliIO): void {
  const trace = program.command('trace').description('generate and inspect workload traces (JSONL)');

  trace
    .command('gen')
    .description('record a workload preset against the nominal service model (0.5 s + 10 ms per output token per call)')
    .requiredOption('--workload <preset>', 'preset name (cc, putnam, osworld, shifting) or path to a preset .json')
    .option('--agents <n>', "concurrent agents, closed loop (default: the preset's)", intOption('--agents', 1))
    .option('--arrival-rate <perSecond>', 'open loop instead: new agents per second', floatOption('--arrival-rate', 0))
    .option('--minutes <m>', 'simulated minutes to record', floatOption('--minutes', 0), 90)
    .option('--seed <n>', 'random seed', intOption('--seed', 0, 0xffffffff), 1)
    .requiredOption('-o, --output <file>', 'trace file to write')
    .action((opts: GenOptions) => {
      if (!(opts.minutes > 0)) throw new UsageError('--minutes must be more than 0');
      if (opts.arrivalRate !== undefined && !(opts.arrivalRate > 0)) throw new UsageError('--arrival-rate must be more than 0');
      if (opts.agents !== undefined && opts.arrivalRate !== undefined) throw new UsageError('give --agents (closed loop) or --arrival-rate (open loop), not both');
      const preset = loadWorkloadPreset(opts.workload);
      const result = generateTrace(preset, { seed: opts.seed, minutes: opts.minutes, agents: opts.agents, arrivalRate: opts.arrivalRate });
      writeFileAtomic(opts.output, formatTrace(result));
      const s = traceStats(result.events);
      io.out(`wrote ${opts.output}: ${s.requests} requests, ${s.agents} agents, ${s.branches} branches, ${opts.minutes} min of ${preset.name} (seed ${opts.seed})\n`);
    });

  trace
    .command('import')
    .description('convert a public trace (Mooncake JSONL, Azure CSV) to an open-loop trace, inferring branches and compactions from its blocks')
    .argument('<file>', 'the public trace file')
    .requiredOption('--format <format>', `input format: ${Object.keys(IMPORT_FORMATS).join(' | ')}`)
    .requiredOption('-o, --output <file>', 'trace file to write (JSONL)')
    .option('--model <name>', 'model profile written to the header', DEFAULT_IMPORT_MODEL)
    .option('--no-infer', 'keep the requests without branches, compactions or ends')
    .option('--limit <n>', 'import only the first n requests', intOption('--limit', 1))
    .action((file: string, opts: ImportFlags) => {
      // Everything is parsed and checked before the write, so a malformed line leaves no output file.
      const result = importTrace(opts.format, file, { model: opts.model, infer: opts.infer, maxLines: opts.limit });
      writeFileAtomic(opts.output, formatTrace(result));
      const s = traceStats(result.events);
      const inferred = s.requestsWithInferredSignals
        ? `inferred signals on ${s.requestsWithInferredSignals} requests (${s.inferredContinuations} continuations, ${s.inferredCompactions} compactions, ${s.inferredBranches} branches)`
        : 'no inferred signals';
      io.out(`wrote ${opts.output}: ${s.requests} requests over ${(s.durationSeconds / 60).toFixed(1)} min from ${result.header.source}; ${inferred}\n`);
    });

  trace
    .command('stats')
    .description('summarise a trace: requests, tokens, ideal cache hits, pauses, harness signals')
    .argument('<file>', 'trace file (JSONL)')
    .option('--json', 'print one JSON object')
    .action((file: string, opts: { json?: boolean }) => {
      const t = readTrace(file);
      const s = traceStats(t.events);
      if (opts.json) io.out(JSON.stringify({ file, source: t.header.source, model: t.header.model, ...s }) + '\n');
      else io.out(statsTable(file, t.header.source, t.header.model, s));
    });
}

function statsTable(file: string, source: string, model: string, s: TraceStats): string {
  const int = (x: number): string => Math.round(x).toLocaleString('en-US');
  const rows: [string, string][] = [
    ['trace', file],
    ['source', `${source} (model ${model})`],
    ['duration', `${(s.durationSeconds / 60).toFixed(1)} min`],
    ['requests', int(s.requests)],
    ['agents', int(s.agents)],
    ['branches', `${int(s.branches)} (${int(s.forks)} forks, ${int(s.subagents)} sub-agents)`],
    ['compactions', int(s.compactions)],
    ['input tokens', `${int(s.meanInputTokens)} mean`],
    ['  new', `${int(s.meanNewTokens)} mean`],
    ['  cached (ideal)', `${int(s.meanCachedTokens)} mean, hit rate ${(s.idealHitRate * 100).toFixed(1)}%`],
    ['output tokens', `${int(s.meanOutputTokens)} mean`],
    ['pause', `${s.meanPauseSeconds.toFixed(2)} s mean`],
  ];
  if (s.requestsWithInferredSignals) {
    rows.push(['inferred signals', `${int(s.requestsWithInferredSignals)} requests: ${int(s.inferredContinuations ?? 0)} continuations, ${int(s.inferredCompactions ?? 0)} compactions, ${int(s.inferredBranches ?? 0)} new branches`]);
  }
  const width = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join('\n') + '\n';
}
