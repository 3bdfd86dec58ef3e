import { z } from 'zod';
import { checkNotes, nonNegative, NotesSchema, positive, positiveInt, section } from './schema-helpers.js';

/**
 * A node kind: one server of 4 GPUs with its host memory, links and engine
 * limits. Relative speeds are against gb300, on which model coefficients are
 * stated (see profiles/scaling.ts).
 */
export const NodeKindSchema = section({
  profile: z.literal('node-kind'),
  name: z.string().min(1),
  gpusPerNode: positiveInt(),
  tensorParallel: positiveInt(),
  memory: section({
    /** HBM left for the KV cache (L1) after weights and activations, whole node. */
    gpuKvBytes: positive(),
    /** Host memory used as the KV pool (L2), whole node. */
    hostKvBytes: positive(),
  }),
  transfer: section({
    /** Own host memory -> GPU (restore), bytes/s and seconds of setup. */
    hostToGpuBandwidth: positive(),
    hostToGpuLatency: nonNegative(),
    /**
     * One GPU's own host link, bytes/s: the rate of one request's host-to-GPU
     * load when its KV is whole on every TP rank (MLA), as SGLang HiCache
     * loads it (mechanics fetchOverlap layerwise). Optional: without it that
     * path uses hostToGpuBandwidth.
     */
    hostToGpuRankBandwidth: positive().optional(),
    /** Peer host memory -> own host -> GPU (pool fetch), effective end to end. */
    fetchBandwidth: positive(),
    fetchLatency: nonNegative(),
    /** Prefill GPU -> decode GPU (a request's KV on its way to decode). */
    gpuToGpuBandwidth: positive(),
    gpuToGpuLatency: nonNegative(),
  }),
  restart: section({
    /** Dynamo-style role change by restart: a triangular law with this min, mean and max. */
    minSeconds: positive(),
    meanSeconds: positive(),
    maxSeconds: positive(),
  }),
  relativeSpeed: section({
    /** Compute-bound work (prefill) vs gb300: prefill coefficients are divided by it. */
    prefillCompute: positive(),
    /** Memory-bandwidth-bound work (decode) vs gb300: decode coefficients are divided by it. */
    decodeMemory: positive(),
  }),
  batch: section({
    maxPrefillTokens: positiveInt(),
    maxDecodeRequests: positiveInt(),
  }),
  /** Coefficient of variation of iteration times around the formulas. */
  noiseCv: z.number().min(0).max(1),
  notes: NotesSchema.optional(),
}).superRefine((kind, ctx) => {
  if (kind.tensorParallel > kind.gpusPerNode) {
    ctx.addIssue({ code: 'custom', path: ['tensorParallel'], message: 'tensor parallelism cannot exceed the GPUs of the node' });
  }
  const r = kind.restart;
  // A triangular law with this mean has mode 3*mean - min - max, which must lie in [min, max].
  const mode = 3 * r.meanSeconds - r.minSeconds - r.maxSeconds;
  if (!(r.minSeconds <= r.maxSeconds) || mode < r.minSeconds || mode > r.maxSeconds) {
    ctx.addIssue({
      code: 'custom',
      path: ['restart', 'meanSeconds'],
      message: 'need min <= max and a mean in [(2*min+max)/3, (min+2*max)/3] (triangular law)',
    });
  }
  checkNotes(kind, ctx);
});

export type NodeKind = z.infer<typeof NodeKindSchema>;
