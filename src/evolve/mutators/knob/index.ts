import { MutationFailed } from '../errors.js';
import { checkPolicy } from '../policy-shape.js';
import { insertKnob } from '../structural/insert-knob.js';
import type { MutationInput, MutationOutput, Mutator } from '../types.js';

/**
 * `knob` (contract v2): one structural edit, the insertion of a plan knob the
 * parent's returned plan does not set (structural/insert-knob.ts), and
 * nothing else, so the child differs from its parent by that knob alone. It
 * is a mutator of its own, not one more kind inside `structural`, so that a
 * mix can leave it out (the roles-only arm of bench/evolve-suite) and so that
 * adding it changed no edit `structural` draws for a seed.
 */
export function createKnobMutator(): Mutator {
  return {
    name: 'knob',
    async mutate(input: MutationInput, signal?: AbortSignal): Promise<MutationOutput> {
      if (signal?.aborted) throw new MutationFailed('aborted', 'aborted before it started', { mutator: 'knob' });
      const parent = checkPolicy(input.parent.code);
      if (!parent.ok) throw new MutationFailed('parse', `parent #${input.parent.id} ${parent.message}`, { mutator: 'knob' });
      const edit = insertKnob.apply({ code: input.parent.code, program: parent.program, inspirations: input.inspirations }, input.rng);
      if (!edit) {
        throw new MutationFailed('no-edit', `parent #${input.parent.id}: schedule returns no plan literal that lacks a knob`, { mutator: 'knob' });
      }
      const check = checkPolicy(edit.code);
      if (!check.ok) throw new MutationFailed('parse', `${edit.description}: result ${check.message}`, { mutator: 'knob' });
      return { code: edit.code, editSummary: edit.description, model: null, promptTokens: null, completionTokens: null, mutator: 'knob' };
    },
  };
}
