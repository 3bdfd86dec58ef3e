import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../../../common/errors.js';
import { packageRoot } from '../../../common/package-root.js';

/** The template files and the placeholders each may use. */
export const TEMPLATE_PLACEHOLDERS = {
  'system.md': ['contract'],
  'mutation.md': ['parentId', 'parentCode', 'parentFitness', 'parentBreakdown', 'parentMetrics', 'children', 'inspirations', 'best', 'recentStrategies'],
  'followup.md': ['block', 'reason', 'search'],
} as const;

export type TemplateName = keyof typeof TEMPLATE_PLACEHOLDERS;
export type Templates = Record<TemplateName, string>;

const PLACEHOLDER = /\{\{\s*([A-Za-z][A-Za-z0-9]*)\s*\}\}/g;

/** The shipped templates, found from the package root so that dist/ finds them too. */
export function defaultTemplatesDir(): string {
  return join(packageRoot(), 'src', 'evolve', 'prompts');
}

/**
 * The shipped templates, each replaced by the file of the same name in
 * `overrideDir` when there is one: a user can change only the system prompt.
 * Checked here, at start-up, so that a typo in a placeholder stops the run
 * before it spends a request.
 */
export function loadTemplates(overrideDir?: string): Templates {
  if (overrideDir !== undefined && !(existsSync(overrideDir) && statSync(overrideDir).isDirectory())) {
    throw new UsageError(`prompt templates directory ${overrideDir} does not exist`);
  }
  const templates = {} as Templates;
  for (const name of Object.keys(TEMPLATE_PLACEHOLDERS) as TemplateName[]) {
    const own = overrideDir === undefined ? undefined : join(overrideDir, name);
    const file = own !== undefined && existsSync(own) ? own : join(defaultTemplatesDir(), name);
    const text = readFileSync(file, 'utf8');
    const known: readonly string[] = TEMPLATE_PLACEHOLDERS[name];
    for (const match of text.matchAll(PLACEHOLDER)) {
      if (!known.includes(match[1]!)) throw new UsageError(`${file}: unknown placeholder {{${match[1]}}} (known here: ${known.join(', ')})`);
    }
    templates[name] = text;
  }
  return templates;
}

/**
 * Fill the placeholders in one pass, so that `{{...}}` inside the values
 * (policy code may contain anything) is left as it is.
 */
export function renderTemplate(template: string, values: Record<string, string>): string {
  return template.replace(PLACEHOLDER, (whole, name: string) => values[name] ?? whole);
}
