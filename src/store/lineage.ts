import { prepared, type Db } from './connection.js';
import { summaryColumns, toSummary, type CandidateSummaryRow } from './candidates.js';
import type { AncestryEntry, ChildLink, ParentRole } from './types.js';

/**
 * Where a candidate came from: itself (depth 0), its parents, their parents,
 * ... following role 'parent' links (inspirations are context, not descent).
 * With two parents a candidate can reach one ancestor by several paths; it is
 * listed once, at its shortest depth.
 *
 * UNION (not UNION ALL) drops repeated (id, depth) pairs before they are
 * expanded again, so the walk is bounded by ancestors x distinct depths, not
 * by the number of paths, which grows exponentially in a lineage full of
 * crossovers. It ends because parent < child holds for every link.
 */
const ANCESTRY_SQL = `
WITH RECURSIVE ancestry(id, depth) AS (
  SELECT ?, 0
  UNION
  SELECT cp.parent, a.depth + 1
  FROM candidate_parents cp JOIN ancestry a ON cp.child = a.id
  WHERE cp.role = 'parent'
)
SELECT ${summaryColumns('c')}, min(a.depth) AS depth
FROM ancestry a JOIN candidates c ON c.id = a.id
GROUP BY c.id
ORDER BY depth, c.id`;

/** The parent links among the ancestors, so a caller can draw the tree without one query per node. */
const ANCESTRY_EDGES_SQL = `
WITH RECURSIVE ancestry(id) AS (
  SELECT ?
  UNION
  SELECT cp.parent FROM candidate_parents cp JOIN ancestry a ON cp.child = a.id WHERE cp.role = 'parent'
)
SELECT cp.child, cp.parent FROM candidate_parents cp
WHERE cp.role = 'parent' AND cp.child IN (SELECT id FROM ancestry)
ORDER BY cp.child, cp.parent`;

/** Empty when the id is unknown. */
export function ancestry(db: Db, id: number): AncestryEntry[] {
  const rows = prepared<CandidateSummaryRow & { depth: number }>(db, ANCESTRY_SQL).all(id);
  const parents = new Map<number, number[]>();
  for (const edge of prepared<{ child: number; parent: number }>(db, ANCESTRY_EDGES_SQL).all(id)) {
    const list = parents.get(edge.child) ?? [];
    list.push(edge.parent);
    parents.set(edge.child, list);
  }
  return rows.map((row) => ({ candidate: toSummary(db, row), depth: row.depth, parents: parents.get(row.id) ?? [] }));
}

/** Candidates that name this one as parent or inspiration, oldest first. */
export function children(db: Db, id: number): ChildLink[] {
  return prepared<CandidateSummaryRow & { role: ParentRole }>(
    db,
    `SELECT ${summaryColumns('c')}, cp.role AS role
     FROM candidate_parents cp JOIN candidates c ON c.id = cp.child
     WHERE cp.parent = ?
     ORDER BY c.id, cp.role = 'inspiration'`,
  )
    .all(id)
    .map((row) => ({ candidate: toSummary(db, row), role: row.role }));
}
