import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../../common/package-root.js';
import type { MutationInput } from '../types.js';
import type { AnswerError } from './answer.js';
import { fenced, formatAgainst, formatFitness, formatNumber, formatScores, signed } from './format.js';
import { renderTemplate, type Templates } from './templates.js';

/** Prompt budget: the newest children and strategies are the informative ones. */
const MAX_CHILDREN = 10;
const MAX_STRATEGIES = 12;

/** The policy contract as shipped, read at start-up so that the prompt never drifts from it. */
export function readContract(): string {
  return readFileSync(join(packageRoot(), 'src', 'policy', 'CONTRACT.md'), 'utf8');
}

export function systemPrompt(templates: Templates, contract: string): string {
  return renderTemplate(templates['system.md'], { contract: contract.trim() });
}

export function mutationPrompt(templates: Templates, input: MutationInput): string {
  const parent = input.parent;
  return renderTemplate(templates['mutation.md'], {
    parentId: String(parent.id),
    parentCode: fenced(parent.code),
    parentFitness: formatFitness(parent.fitness),
    parentBreakdown: formatScores(parent.breakdown),
    parentMetrics: formatScores(parent.metrics),
    children: childrenSection(input),
    inspirations: inspirationsSection(input),
    best: bestSection(input),
    recentStrategies: strategiesSection(input.recentStrategies),
  });
}

export function followupPrompt(templates: Templates, error: AnswerError): string {
  return renderTemplate(templates['followup.md'], {
    block: String(error.block),
    reason: error.reason,
    search: error.search === undefined ? '(none)' : fenced(error.search),
  });
}

function childrenSection(input: MutationInput): string {
  if (input.children.length === 0) return '(none yet: this is the first attempt from this parent)';
  const shown = input.children.slice(-MAX_CHILDREN);
  const parentFitness = input.parent.fitness;
  const lines: string[] = [];
  if (shown.length < input.children.length) lines.push(`(${input.children.length - shown.length} older children not shown)`);
  for (const child of shown) {
    const head = `- #${child.id}: ${child.editSummary}`;
    if (child.failure !== undefined) {
      lines.push(`${head}\n  failed: ${child.failure}`);
      continue;
    }
    const vsParent = typeof child.fitness === 'number' && typeof parentFitness === 'number' ? ` (parent ${formatNumber(parentFitness)} s, ${signed(child.fitness - parentFitness)})` : '';
    lines.push(`${head}\n  fitness: ${formatFitness(child.fitness)}${vsParent}\n${formatAgainst(child.breakdown, input.parent.breakdown, '  ')}`);
  }
  return lines.join('\n');
}

function inspirationsSection(input: MutationInput): string {
  if (input.inspirations.length === 0) return '(none)';
  return input.inspirations
    .map((p) => `### Inspiration #${p.id}, fitness ${formatFitness(p.fitness)}\n\n${formatScores(p.breakdown)}\n\n${fenced(p.code)}`)
    .join('\n\n');
}

function bestSection(input: MutationInput): string {
  const best = input.best;
  if (best === null) return '(none yet)';
  if (best.id === input.parent.id) return `The parent (#${best.id}) is the best candidate so far.`;
  return `#${best.id}, fitness ${formatFitness(best.fitness)}\n\n${formatScores(best.breakdown)}\n\n${fenced(best.code)}`;
}

function strategiesSection(strategies: readonly string[]): string {
  const unique = [...new Set(strategies.map((s) => s.trim()).filter((s) => s !== ''))].slice(-MAX_STRATEGIES);
  return unique.length === 0 ? '(none yet)' : unique.map((s) => `- ${s}`).join('\n');
}
