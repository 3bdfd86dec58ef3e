import type { ModuleDeclaration, Statement } from 'acorn';
import { MutationFailed } from '../errors.js';
import { checkPolicy, parsePolicy } from '../policy-shape.js';
import type { MutationInput, MutationOutput, Mutator, ScoredPolicy } from '../types.js';
import { closureOf, declaredNames, renamed } from './closure.js';

type TopLevel = Statement | ModuleDeclaration;

/**
 * Function-level crossover of two elites: `shouldReschedule` and its helpers
 * (transitive callees, and the top-level constants they read) from one,
 * `schedule` and its helpers from the other. Which parent gives the trigger
 * is drawn. A declaration both sides bring with the same text is kept once; a
 * name both define differently is renamed on the planner's side
 * (`name_x2`, every use in its statements too). The result must parse and
 * declare both contract functions, or the mutation fails.
 */
export function createCrossoverMutator(): Mutator {
  return {
    name: 'crossover',
    async mutate(input: MutationInput, signal?: AbortSignal): Promise<MutationOutput> {
      if (signal?.aborted) throw new MutationFailed('aborted', 'aborted before it started', { mutator: 'crossover' });
      const mates = [...input.inspirations, ...(input.best ? [input.best] : [])].filter((m) => m.code !== input.parent.code && checkPolicy(m.code).ok);
      if (mates.length === 0) throw new MutationFailed('no-edit', `no other elite to cross #${input.parent.id} with`, { mutator: 'crossover' });
      const mate = input.rng.pick(mates);
      const parent: ScoredPolicy = { id: input.parent.id, code: input.parent.code, fitness: input.parent.fitness ?? null };
      const parentTriggers = input.rng.chance(0.5);
      const [trigger, planner] = parentTriggers ? [parent, mate] : [mate, parent];
      const out = crossPolicies(trigger.code, planner.code);
      const check = checkPolicy(out.code);
      if (!check.ok) throw new MutationFailed('parse', `crossover of #${trigger.id} and #${planner.id}: ${check.message}`, { mutator: 'crossover' });
      if (out.code === input.parent.code) throw new MutationFailed('no-edit', `crossover with #${mate.id} gave the parent back`, { mutator: 'crossover' });
      const renames = out.renamed.length > 0 ? ` (renamed ${out.renamed.join(', ')} on the schedule side)` : '';
      return {
        code: out.code,
        editSummary: `crossover: shouldReschedule from #${trigger.id}, schedule from #${planner.id}${renames}`,
        model: null,
        promptTokens: null,
        completionTokens: null,
        mutator: 'crossover',
      };
    },
  };
}

/** The trigger's closure, then the planner's (shared declarations once, clashes renamed). Throws if either does not parse. */
export function crossPolicies(triggerCode: string, plannerCode: string): { code: string; renamed: string[] } {
  const a = parsePolicy(triggerCode);
  const b = parsePolicy(plannerCode);
  const fromA = closureOf(a, 'shouldReschedule');
  const fromB = closureOf(b, 'schedule');
  const textA = new Map<string, string>();
  for (const s of fromA) for (const name of declaredNames(s)) textA.set(name, triggerCode.slice(s.start, s.end));
  // A name defined on both sides with different text is renamed on B's side;
  // the contract function `schedule` itself can only come from B (A's copy, if its closure holds one, is dropped).
  const taken = new Set([...textA.keys(), ...fromB.flatMap(declaredNames)]);
  const renames = new Map<string, string>();
  const shared = new Set<TopLevel>();
  for (const s of fromB) {
    for (const name of declaredNames(s)) {
      const mine = textA.get(name);
      if (mine === undefined || name === 'schedule') continue;
      if (mine === plannerCode.slice(s.start, s.end)) shared.add(s);
      else renames.set(name, fresh(name, taken));
    }
  }
  const dropFromA = new Set(fromA.filter((s) => declaredNames(s).includes('schedule')));
  const partsA = fromA.filter((s) => !dropFromA.has(s)).map((s) => triggerCode.slice(s.start, s.end));
  const partsB = fromB.filter((s) => !shared.has(s)).map((s) => renamed(plannerCode, s, renames));
  return { code: [...partsA, ...partsB].join('\n\n') + '\n', renamed: [...renames].map(([from, to]) => `${from} -> ${to}`) };
}

function fresh(name: string, taken: Set<string>): string {
  for (let k = 2; ; k++) {
    const candidate = `${name}_x${k}`;
    if (!taken.has(candidate)) {
      taken.add(candidate);
      return candidate;
    }
  }
}
