import { parse, type Program } from 'acorn';

/** The two functions the policy contract (src/policy/CONTRACT.md) requires at top level. */
export const CONTRACT_FUNCTIONS = ['shouldReschedule', 'schedule'] as const;

/**
 * Parse a policy the way the sandbox will run it: a script (no import/export),
 * the latest syntax. Ranges and locations let edits splice source text and
 * name lines.
 */
export function parsePolicy(code: string): Program {
  return parse(code, { ecmaVersion: 'latest', sourceType: 'script', ranges: true, locations: true });
}

export type PolicyCheck = { ok: true; program: Program } | { ok: false; message: string };

/**
 * Whether code can be a policy at all: it parses and declares both contract
 * functions at top level. Anything less is rejected before it costs an
 * evaluation.
 */
export function checkPolicy(code: string): PolicyCheck {
  let program: Program;
  try {
    program = parsePolicy(code);
  } catch (error) {
    return { ok: false, message: `does not parse: ${(error as Error).message}` };
  }
  const declared = new Set(topLevelFunctionNames(program));
  const missing = CONTRACT_FUNCTIONS.filter((name) => !declared.has(name));
  if (missing.length > 0) return { ok: false, message: `does not declare ${missing.join(' and ')} as a top-level function` };
  return { ok: true, program };
}

export function topLevelFunctionNames(program: Program): string[] {
  const names: string[] = [];
  for (const statement of program.body) {
    if (statement.type === 'FunctionDeclaration' && statement.id) names.push(statement.id.name);
  }
  return names;
}
