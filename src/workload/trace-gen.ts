import { UsageError } from '../common/errors.js';
import { encodeBlocks } from './blocks.js';
import type { BurstSpec } from './bursts.js';
import type { HarnessObserver } from './harness.js';
import { NOMINAL_BASE_SECONDS, NOMINAL_SECONDS_PER_OUTPUT_TOKEN, runNominal } from './nominal.js';
import type { WorkloadPreset } from './preset-schema.js';
import { createPresetSource } from './preset-source.js';
import { TRACE_FORMAT, TRACE_VERSION, type Trace, type TraceEvent } from './trace-schema.js';

export interface GenerateTraceOptions {
  seed: number;
  /** Simulated minutes to record. */
  minutes: number;
  /** Closed loop with this many agents (default: the preset's). */
  agents?: number;
  /** Open loop at this many new agents per second instead. */
  arrivalRate?: number;
  /** Synchronised sub-agent bursts (overrides the preset's; null = off). */
  bursts?: BurstSpec | null;
  /** Coefficient of variation of per-call output lengths (overrides the presets'; see output-spread.ts). */
  outputCv?: number;
}

/**
 * Run a preset's harness against the nominal service model (see nominal.ts)
 * and record what it did. Lines are sorted by time and request ids renumbered
 * densely in that order; `after` and `wait` carry the dependencies, so the
 * trace replays closed-loop per agent whatever the real latencies.
 */
export function generateTrace(preset: WorkloadPreset, options: GenerateTraceOptions): Trace {
  if (!(options.minutes > 0) || !Number.isFinite(options.minutes)) throw new UsageError(`minutes must be a number > 0, got ${options.minutes}`);
  const horizon = options.minutes * 60;
  const recorded: TraceEvent[] = [];
  const source = createPresetSource(preset, {
    seed: options.seed,
    agents: options.agents,
    arrivalRate: options.arrivalRate,
    bursts: options.bursts,
    ...(options.outputCv !== undefined ? { outputCv: options.outputCv } : {}),
    observer: recorder(recorded),
  });
  runNominal(source, horizon);
  const events = renumber(recorded.filter((e) => e.t <= horizon).sort((a, b) => a.t - b.t));
  const loop = options.arrivalRate !== undefined ? { arrivalRate: options.arrivalRate } : { agents: options.agents ?? (preset.loop.mode === 'closed' ? preset.loop.agents : undefined) };
  return {
    header: {
      type: 'header',
      format: TRACE_FORMAT,
      version: TRACE_VERSION,
      model: preset.model,
      source: preset.name,
      seed: options.seed,
      minutes: options.minutes,
      ...loop,
      service: `nominal: ${NOMINAL_BASE_SECONDS} s + ${NOMINAL_SECONDS_PER_OUTPUT_TOKEN} s per output token`,
    },
    events,
  };
}

function recorder(out: TraceEvent[]): HarnessObserver {
  return {
    agent: (agent, branch, kind, t, replaces) => out.push(replaces === undefined ? { type: 'agent', agent, branch, kind, t } : { type: 'agent', agent, branch, kind, replaces, t }),
    branch: (type, branch, parent, agent, t) => out.push({ type, branch, parent, agent, t }),
    request: (r, t, after, wait, sync) =>
      out.push({
        type: 'request',
        id: r.id,
        agent: r.agent,
        branch: r.branch,
        version: r.version,
        t,
        after: after.slice(),
        wait,
        input: r.inputTokens,
        output: r.outputTokens,
        blocks: encodeBlocks(r.blocks),
        produced: encodeBlocks(r.producedBlocks),
        // Only burst-held calls carry it, so traces without bursts are unchanged.
        ...(sync !== undefined ? { sync } : {}),
      }),
    compact: (branch, version, t) => out.push({ type: 'compact', branch, version, t }),
    end: (branch, lastRequest, t) => out.push({ type: 'end', branch, after: lastRequest, t }),
  };
}

/** Dense request ids in file order. A request's dependencies complete before it arrives, so they are never cut off by the horizon. */
function renumber(events: TraceEvent[]): TraceEvent[] {
  const ids = new Map<number, number>();
  for (const e of events) if (e.type === 'request') ids.set(e.id, ids.size);
  const map = (id: number): number => ids.get(id)!;
  return events.map((e) => {
    if (e.type === 'request') return { ...e, id: map(e.id), after: e.after.map(map) };
    if (e.type === 'end') return { ...e, after: map(e.after) };
    return e;
  });
}
