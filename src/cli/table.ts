/** Render rows as an aligned plain-text table. */
export function renderTable(rows: readonly (readonly (string | number)[])[], header?: readonly string[]): string {
  const all = header ? [header, ...rows] : rows;
  const widths: number[] = [];
  for (const row of all) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, String(cell).length)));
  const line = (row: readonly (string | number)[]) =>
    row.map((cell, i) => (typeof cell === 'number' ? String(cell).padStart(widths[i]!) : String(cell).padEnd(widths[i]!))).join('  ').trimEnd();
  const out = all.map(line);
  if (header) out.splice(1, 0, widths.map((w) => '-'.repeat(w)).join('  '));
  return out.join('\n') + '\n';
}
