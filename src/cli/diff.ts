/**
 * A unified diff of two texts (longest common subsequence over lines), for
 * `show --diff`. Policies are a few hundred lines, so the quadratic table is fine.
 */
export function unifiedDiff(before: string, after: string, fromLabel: string, toLabel: string, context = 3): string {
  const a = before.split('\n');
  const b = after.split('\n');
  const n = a.length;
  const m = b.length;
  const lcs: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const ops: { tag: ' ' | '-' | '+'; line: string; ai: number; bi: number }[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) ops.push({ tag: ' ', line: a[i]!, ai: i++, bi: j++ });
    else if (i < n && (j === m || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) ops.push({ tag: '-', line: a[i]!, ai: i++, bi: j });
    else ops.push({ tag: '+', line: b[j]!, ai: i, bi: j++ });
  }
  const out = [`--- ${fromLabel}`, `+++ ${toLabel}`];
  for (let k = 0; k < ops.length; ) {
    if (ops[k]!.tag === ' ') {
      k++;
      continue;
    }
    const start = Math.max(0, k - context);
    let end = k;
    while (end < ops.length && (ops[end]!.tag !== ' ' || ops.slice(end, end + 2 * context + 1).some((o) => o.tag !== ' '))) end++;
    end = Math.min(ops.length, end + context);
    const hunk = ops.slice(start, end);
    const aLen = hunk.filter((o) => o.tag !== '+').length;
    const bLen = hunk.filter((o) => o.tag !== '-').length;
    out.push(`@@ -${hunk[0]!.ai + 1},${aLen} +${hunk[0]!.bi + 1},${bLen} @@`);
    for (const o of hunk) out.push(o.tag + o.line);
    k = end;
  }
  return out.length === 2 ? out.join('\n') + '\n(no change)' : out.join('\n');
}
