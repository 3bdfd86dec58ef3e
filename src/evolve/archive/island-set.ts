import { z } from 'zod';
import { InputError } from '../../common/errors.js';
import { parseOrThrow } from '../../common/validate.js';
import { Archive, ArchiveSnapshotSchema, type ArchiveSnapshot, type ConsiderOutcome } from './archive.js';
import { bestOf, type Candidate, type Elite } from './candidate.js';
import { DEFAULT_FEATURE_BINS, FeatureSpace, FeatureSpaceSchema } from './features.js';

export const IslandSetConfigSchema = z.strictObject({
  /** Islands evolve apart and exchange only their best (migration), which keeps diversity. */
  islands: z.number().int().min(1).max(256).default(4),
  features: FeatureSpaceSchema.default(DEFAULT_FEATURE_BINS),
});
export type IslandSetConfigInput = z.input<typeof IslandSetConfigSchema>;
export type IslandSetConfig = z.output<typeof IslandSetConfigSchema>;

export const IslandSetSnapshotSchema = z.strictObject({
  version: z.literal(1),
  islands: z.array(ArchiveSnapshotSchema).min(1),
  seen: z.array(z.string()),
});

/** Plain JSON form of the whole population, for checkpoints (the caller stores it). */
export interface IslandSetSnapshot {
  version: 1;
  islands: ArchiveSnapshot[];
  /** Every code hash ever evaluated, sorted. */
  seen: string[];
}

/**
 * The population: N archives over one shared feature space (so a migrant
 * lands in the same cell it held at home), plus the set of code hashes ever
 * evaluated. The caller checks `seen` before evaluating, so the same program
 * is never evaluated twice, even after its elite has been displaced.
 */
export class IslandSet {
  readonly space: FeatureSpace;
  private archives: Archive[];
  private readonly evaluated = new Set<string>();

  constructor(config: IslandSetConfigInput = {}) {
    const { islands, features } = parseOrThrow(IslandSetConfigSchema, config, { field: 'population' });
    this.space = new FeatureSpace(features);
    this.archives = Array.from({ length: islands }, () => new Archive(this.space));
  }

  get count(): number {
    return this.archives.length;
  }

  island(index: number): Archive {
    const archive = Number.isInteger(index) ? this.archives[index] : undefined;
    if (!archive) throw new RangeError(`island ${index} does not exist (0..${this.count - 1})`);
    return archive;
  }

  all(): readonly Archive[] {
    return this.archives;
  }

  /** Offer an evaluated candidate to an island; its hash counts as seen whatever the outcome. */
  add(island: number, candidate: Candidate): ConsiderOutcome {
    const outcome = this.island(island).consider(candidate);
    this.evaluated.add(candidate.codeHash);
    return outcome;
  }

  /** The best elite of all islands (ties by id), or undefined when all are empty. */
  bestOverall(): Elite | undefined {
    return bestOf(this.archives.flatMap((a) => a.best() ?? []));
  }

  /** Whether this code was already evaluated (or is being evaluated). */
  seen(codeHash: string): boolean {
    return this.evaluated.has(codeHash);
  }

  /**
   * Record code as evaluated; false when it already was. Mark at dispatch,
   * not on completion, so two parallel mutations to the same code are not
   * both evaluated.
   */
  markSeen(codeHash: string): boolean {
    if (this.evaluated.has(codeHash)) return false;
    this.evaluated.add(codeHash);
    return true;
  }

  get seenCount(): number {
    return this.evaluated.size;
  }

  toJSON(): IslandSetSnapshot {
    return {
      version: 1,
      islands: this.archives.map((a) => a.toJSON()),
      seen: [...this.evaluated].sort(),
    };
  }

  static restore(snapshot: unknown, field = 'population'): IslandSet {
    const parsed = parseOrThrow(IslandSetSnapshotSchema, snapshot, { field });
    const archives = parsed.islands.map((a, i) => Archive.restore(a, `${field}.islands.${i}`));
    const grid = JSON.stringify(archives[0]!.space.config);
    archives.forEach((a, i) => {
      if (JSON.stringify(a.space.config) !== grid) throw new InputError('all islands must share one feature space', { field: `${field}.islands.${i}.features` });
    });
    const set = new IslandSet({ islands: archives.length, features: archives[0]!.space.config });
    // Each archive keeps its own FeatureSpace instance; they are equal, which is all migration needs.
    set.archives = archives;
    for (const hash of parsed.seen) set.evaluated.add(hash);
    for (const a of archives) for (const e of a.elites()) set.evaluated.add(e.codeHash);
    return set;
  }
}
