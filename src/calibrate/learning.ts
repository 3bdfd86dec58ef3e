import { z } from 'zod';
import { round } from '../sim/index.js';

/**
 * The online-fitted iteration model's error as the simulator reports it in
 * `SimResult.learning` (src/sim/learning/report.ts): mean absolute
 * percentage errors in percent against the noise-free truth, and when the
 * fit converged. A result without the field (a simulator that does not
 * learn, or reports in another shape) gives null, and the calibration then
 * reports no model error rather than an invented one.
 */
const percent = z.number().min(0).nullable().optional();

export const LearningSchema = z.object({
  /** 'given': the engine was handed a model and learned nothing (no error to report). */
  mode: z.string().optional(),
  /** Simulated seconds from the start of the run to convergence. */
  convergedAtSeconds: z.number().nullable().optional(),
  /** Seconds of serving it took (differs when agents start late, e.g. after an environment setup). */
  convergenceSeconds: z.number().nullable().optional(),
  mape: z.object({ prefillSingle: percent, prefillBatch: percent, decode: percent, mean: percent }),
});
export type Learning = z.infer<typeof LearningSchema>;

/** `result.learning` if the simulator reports it in the expected shape, else null. */
export function learningOf(result: object): Learning | null {
  const value = (result as { learning?: unknown }).learning;
  if (value === undefined || value === null) return null;
  const parsed = LearningSchema.safeParse(value);
  return parsed.success && parsed.data.mode !== 'given' ? parsed.data : null;
}

/** Model error over the calibration runs that report one: means of the errors (percent), slowest convergence. */
export interface ModelError {
  runs: number;
  /** Mean over runs, in percent; null where no run had samples of that kind. */
  mapePct: { prefillSingle: number | null; prefillBatch: number | null; decode: number | null; mean: number | null };
  /** Seconds of serving until the fit converged, worst run; null if no run converged. */
  convergedAtSeconds: number | null;
}

export function summarizeLearning(items: readonly (Learning | null)[]): ModelError | null {
  const have = items.filter((x): x is Learning => x !== null);
  if (have.length === 0) return null;
  const meanPct = (pick: (l: Learning) => number | null | undefined): number | null => {
    const xs = have.map(pick).filter((x): x is number => typeof x === 'number');
    return xs.length ? round(xs.reduce((a, b) => a + b, 0) / xs.length, 3) : null;
  };
  const conv = have.map((l) => l.convergenceSeconds ?? l.convergedAtSeconds).filter((x): x is number => typeof x === 'number');
  return {
    runs: have.length,
    mapePct: {
      prefillSingle: meanPct((l) => l.mape.prefillSingle),
      prefillBatch: meanPct((l) => l.mape.prefillBatch),
      decode: meanPct((l) => l.mape.decode),
      mean: meanPct((l) => l.mape.mean),
    },
    convergedAtSeconds: conv.length ? Math.max(...conv) : null,
  };
}


/**
 * The model error of a calibration over several seeds: each seed's summary
 * (over its own runs) averaged over the seeds, so that the figures keep
 * their one-seed meaning; the slowest convergence would otherwise grow with
 * the number of runs alone. `runs` counts the runs of all seeds.
 */
export function combineModelErrors(perSeed: readonly (ModelError | null)[]): ModelError | null {
  const have = perSeed.filter((x): x is ModelError => x !== null);
  if (have.length === 0) return null;
  const mean = (pick: (m: ModelError) => number | null): number | null => {
    const xs = have.map(pick).filter((x): x is number => x !== null);
    return xs.length ? round(xs.reduce((a, b) => a + b, 0) / xs.length, 3) : null;
  };
  return {
    runs: have.reduce((a, m) => a + m.runs, 0),
    mapePct: {
      prefillSingle: mean((m) => m.mapePct.prefillSingle),
      prefillBatch: mean((m) => m.mapePct.prefillBatch),
      decode: mean((m) => m.mapePct.decode),
      mean: mean((m) => m.mapePct.mean),
    },
    convergedAtSeconds: mean((m) => m.convergedAtSeconds),
  };
}
