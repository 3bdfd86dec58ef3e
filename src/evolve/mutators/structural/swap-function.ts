import type { FunctionDeclaration, Program, Statement, ModuleDeclaration } from 'acorn';
import { full } from 'acorn-walk';
import { parsePolicy } from '../policy-shape.js';
import type { ScoredPolicy } from '../types.js';
import type { Edit, EditContext, EditKind } from './edit.js';
import { splice } from './source.js';

/**
 * Replace one top-level function with the same-named function of an
 * inspiration: recombination of two elites at the granularity policies are
 * written in (a trigger, a planner, a helper). Top-level helpers the new
 * function uses and the parent lacks come along, placed right after it, so
 * the swapped code does not fail on a missing name. No site when no
 * inspiration has a same-named function that differs.
 */
export const swapFunction: EditKind = {
  name: 'swap-function',
  weight: 1,
  apply(context, rng): Edit | null {
    const sites = swapSites(context);
    if (sites.length === 0) return null;
    const site = rng.pick(sites);
    const helpers = missingHelpers(site.donor, site.incoming, topLevelNames(context.program));
    const text = [site.donor.code.slice(site.incoming.start, site.incoming.end), ...helpers.map((h) => h.text)].join('\n\n');
    const name = site.incoming.id!.name;
    const bringing = helpers.length === 0 ? '' : ` with ${helpers.length === 1 ? 'helper' : `${helpers.length} helpers`} ${listed(helpers.flatMap((h) => h.names))}`;
    return {
      code: splice(context.code, site.target.start, site.target.end, text),
      description: `swap function ${name} from candidate #${site.donor.id}${bringing}`,
    };
  },
};

interface Donor {
  id: number;
  code: string;
  program: Program;
}

function swapSites(context: EditContext): { target: FunctionDeclaration; incoming: FunctionDeclaration; donor: Donor }[] {
  const donors = parsedDonors(context.inspirations);
  const sites: { target: FunctionDeclaration; incoming: FunctionDeclaration; donor: Donor }[] = [];
  for (const target of topLevelFunctions(context.program)) {
    const ownText = context.code.slice(target.start, target.end);
    for (const donor of donors) {
      const incoming = topLevelFunctions(donor.program).find((f) => f.id!.name === target.id!.name);
      if (incoming && donor.code.slice(incoming.start, incoming.end) !== ownText) sites.push({ target, incoming, donor });
    }
  }
  return sites;
}

/** Inspirations that parse; one that does not is simply no donor. */
function parsedDonors(inspirations: readonly ScoredPolicy[]): Donor[] {
  const donors: Donor[] = [];
  for (const inspiration of inspirations) {
    try {
      donors.push({ id: inspiration.id, code: inspiration.code, program: parsePolicy(inspiration.code) });
    } catch {
      continue;
    }
  }
  return donors;
}

function topLevelFunctions(program: Program): FunctionDeclaration[] {
  return program.body.filter((s): s is FunctionDeclaration => s.type === 'FunctionDeclaration' && s.id !== null);
}

/** Names a top-level statement declares: functions, classes, plain `const x`/`let x`/`var x`. */
function declaredNames(statement: Statement | ModuleDeclaration): string[] {
  if ((statement.type === 'FunctionDeclaration' || statement.type === 'ClassDeclaration') && statement.id) return [statement.id.name];
  if (statement.type === 'VariableDeclaration') {
    return statement.declarations.flatMap((d) => (d.id.type === 'Identifier' ? [d.id.name] : []));
  }
  return [];
}

function topLevelNames(program: Program): Set<string> {
  return new Set(program.body.flatMap(declaredNames));
}

/** Identifiers a node reads (over-approximated: locals count too, which at worst brings an unused helper). */
function referencedNames(node: Statement | ModuleDeclaration): Set<string> {
  const names = new Set<string>();
  full(node, (n) => {
    if (n.type === 'Identifier') names.add(n.name);
  });
  return names;
}

/** The donor's top-level declarations the incoming function needs, transitively, in the donor's order. */
function missingHelpers(donor: Donor, incoming: FunctionDeclaration, present: Set<string>): { names: string[]; text: string }[] {
  const byName = new Map<string, Statement | ModuleDeclaration>();
  for (const statement of donor.program.body) for (const name of declaredNames(statement)) byName.set(name, statement);
  const have = new Set(present);
  have.add(incoming.id!.name);
  const taken = new Set<Statement | ModuleDeclaration>();
  const queue = [...referencedNames(incoming)];
  while (queue.length > 0) {
    const name = queue.shift()!;
    const statement = byName.get(name);
    if (!statement || have.has(name) || taken.has(statement)) continue;
    taken.add(statement);
    for (const declared of declaredNames(statement)) have.add(declared);
    queue.push(...referencedNames(statement));
  }
  return [...taken]
    .sort((a, b) => a.start - b.start)
    .map((statement) => ({ names: declaredNames(statement), text: donor.code.slice(statement.start, statement.end) }));
}

/** At most three names, so that the description stays one short line. */
function listed(names: string[]): string {
  return names.length <= 3 ? names.join(', ') : `${names.slice(0, 3).join(', ')}, …`;
}
