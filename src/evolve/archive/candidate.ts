/**
 * What the population knows about a candidate: nothing of the cluster or the
 * simulator (design section 7: `evolve` is independent of GB300), only an id,
 * the hash of its code, one fitness number and named behaviour features.
 */
export interface Candidate {
  readonly id: string;
  /**
   * Hash of the whitespace-normalised source: equal hashes are the same
   * program. Computed by the caller with the lineage store's codeHash
   * (src/common/code-hash.ts), the one definition, so that hashes here match
   * the stored ones (de-duplication, warm start); the archive only compares them.
   */
  readonly codeHash: string;
  /** The evaluator's T_total in seconds: LOWER is better. Must be finite. */
  readonly fitness: number;
  /** Behaviour features by name; missing or NaN values fall in bin 0. */
  readonly features: Readonly<Record<string, number>>;
}

/** A candidate that holds a cell of an archive. */
export interface Elite extends Candidate {
  readonly cell: string;
}

/**
 * The one total order of elites used everywhere (best first): fitness, then
 * id, then cell. Ids and cells are compared by code unit, not locale, so the
 * order is the same on every machine.
 */
export function compareElites(a: Elite, b: Elite): number {
  if (a.fitness !== b.fitness) return a.fitness < b.fitness ? -1 : 1;
  if (a.id !== b.id) return a.id < b.id ? -1 : 1;
  if (a.cell !== b.cell) return a.cell < b.cell ? -1 : 1;
  return 0;
}

/** The best of a list by compareElites, or undefined when empty. */
export function bestOf(elites: Iterable<Elite>): Elite | undefined {
  let best: Elite | undefined;
  for (const e of elites) if (!best || compareElites(e, best) < 0) best = e;
  return best;
}

/**
 * A frozen copy: the archive must not change because the caller later mutates
 * the object it passed in. Only the candidate's own fields are kept.
 */
export function freezeElite(candidate: Candidate, cell: string): Elite {
  if (typeof candidate.id !== 'string' || candidate.id === '') throw new RangeError('a candidate needs a non-empty id');
  if (typeof candidate.codeHash !== 'string' || candidate.codeHash === '') {
    throw new RangeError(`candidate ${candidate.id}: needs a non-empty codeHash`);
  }
  // A NaN fitness would make every comparison false and silently freeze a
  // cell; Infinity cannot survive a JSON checkpoint. Both are caller bugs.
  if (typeof candidate.fitness !== 'number' || !Number.isFinite(candidate.fitness)) {
    throw new RangeError(`candidate ${candidate.id}: fitness must be a finite number, got ${candidate.fitness}`);
  }
  return Object.freeze({
    id: candidate.id,
    codeHash: candidate.codeHash,
    fitness: candidate.fitness,
    features: Object.freeze({ ...candidate.features }),
    cell,
  });
}
