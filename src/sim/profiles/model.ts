import { z } from 'zod';
import { DecodeCoefficientsSchema, PrefillCoefficientsSchema } from '../perf/coefficients.js';
import { checkNotes, nonNegative, NotesSchema, positive, positiveInt, section } from './schema-helpers.js';

/**
 * A model: its assumed shape, speculative decoding, and the iteration-time
 * truth coefficients measured on one node kind (`coefficientsNodeKind`,
 * gb300 for the shipped profiles). The truth requires a positive fixed cost
 * per iteration (c0, d0), which also keeps every iteration time positive;
 * the fitted-model contract in perf/coefficients.ts allows zero.
 */
export const ModelProfileSchema = section({
  profile: z.literal('model'),
  name: z.string().min(1),
  coefficientsNodeKind: z.string().min(1),
  shape: section({
    layers: positiveInt(),
    routedExperts: positiveInt(),
    expertsPerToken: positiveInt(),
    /** Bytes of KV per token, all layers (MLA latent KV in FP8). */
    kvBytesPerToken: positive(),
  }),
  speculative: section({
    /** t_fwd: tokens fed per request per decode iteration (1 + draft tokens). */
    tokensFed: positive(),
    /** t_acc: tokens accepted per request per decode iteration. */
    tokensAccepted: positive(),
  }),
  prefill: section({ ...PrefillCoefficientsSchema.shape, c0: positive() }),
  decode: section({ ...DecodeCoefficientsSchema.shape, d0: positive() }),
  decodeContext: section({ perToken: nonNegative() }),
  notes: NotesSchema.optional(),
}).superRefine((m, ctx) => {
  if (m.shape.expertsPerToken > m.shape.routedExperts) {
    ctx.addIssue({ code: 'custom', path: ['shape', 'expertsPerToken'], message: 'cannot exceed shape.routedExperts' });
  }
  if (m.speculative.tokensFed < 1) {
    ctx.addIssue({ code: 'custom', path: ['speculative', 'tokensFed'], message: 'at least the one real token is fed' });
  }
  if (m.speculative.tokensAccepted < 1 || m.speculative.tokensAccepted > m.speculative.tokensFed) {
    ctx.addIssue({
      code: 'custom',
      path: ['speculative', 'tokensAccepted'],
      message: 'must be between 1 (the real token is always kept) and speculative.tokensFed',
    });
  }
  checkNotes(m, ctx);
});

export type ModelProfile = z.infer<typeof ModelProfileSchema>;
