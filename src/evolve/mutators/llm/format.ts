/**
 * Turning scores into prompt text. Breakdowns and metrics arrive as `unknown`
 * (the evaluator owns their shape), so they are flattened to `key: value`
 * lines rather than assumed to have particular fields.
 */

/**
 * Enough digits to see a difference between parent and child (945.25 s stays
 * 945.25), few enough to read: at most 3 decimals, 4 significant digits below 1.
 */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value) || Number.isInteger(value)) return String(value);
  return String(Math.abs(value) >= 1 ? Number(value.toFixed(3)) : Number(value.toPrecision(4)));
}

export function formatFitness(fitness: number | null | undefined): string {
  return typeof fitness === 'number' ? `${formatNumber(fitness)} s` : 'not scored';
}

/** Nested objects as dotted keys; arrays and odd values as compact JSON, cut short. */
export function flatten(value: unknown, prefix = '', depth = 0): [string, unknown][] {
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && depth < 3) {
    return Object.entries(value as Record<string, unknown>).flatMap(([key, inner]) => flatten(inner, prefix ? `${prefix}.${key}` : key, depth + 1));
  }
  return [[prefix || 'value', value]];
}

function formatValue(value: unknown): string {
  if (typeof value === 'number') return formatNumber(value);
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return String(value);
  const json = JSON.stringify(value) ?? String(value);
  return json.length <= 200 ? json : json.slice(0, 199) + '…';
}

/** `- key: value` lines, or a note when nothing was measured. */
export function formatScores(scores: unknown, indent = ''): string {
  if (scores === null || scores === undefined) return `${indent}(not measured)`;
  if (typeof scores !== 'object') return indent + formatValue(scores);
  const lines = flatten(scores).map(([key, value]) => `${indent}- ${key}: ${formatValue(value)}`);
  return lines.length > 0 ? lines.join('\n') : `${indent}(empty)`;
}

/** A child's scores beside its parent's: `- key: child (parent p, +d)`, so the model sees what the edit did. */
export function formatAgainst(scores: unknown, parentScores: unknown, indent = ''): string {
  if (scores === null || scores === undefined || typeof scores !== 'object') return formatScores(scores, indent);
  const parent = new Map(parentScores !== null && typeof parentScores === 'object' ? flatten(parentScores) : []);
  return flatten(scores)
    .map(([key, value]) => {
      const before = parent.get(key);
      if (typeof value !== 'number' || typeof before !== 'number') return `${indent}- ${key}: ${formatValue(value)}`;
      if (value === before) return `${indent}- ${key}: ${formatNumber(value)} (same as parent)`;
      return `${indent}- ${key}: ${formatNumber(value)} (parent ${formatNumber(before)}, ${signed(value - before)})`;
    })
    .join('\n');
}

export function signed(delta: number): string {
  return (delta >= 0 ? '+' : '') + formatNumber(delta);
}

/** A fenced JS block whose fence is longer than any backtick run in the code, so code cannot close it early. */
export function fenced(code: string): string {
  const longest = Math.max(2, ...[...code.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}js\n${code.endsWith('\n') ? code : code + '\n'}${fence}`;
}
