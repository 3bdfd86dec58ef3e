import { z } from 'zod';
import { InputError } from '../../common/errors.js';
import { parseOrThrow } from '../../common/validate.js';
import { bestOf, compareElites, freezeElite, type Candidate, type Elite } from './candidate.js';
import { FeatureSpace, FeatureSpaceSchema, type FeatureSpaceConfig, type FeatureSpaceInput } from './features.js';

/** What `consider` did with a candidate. */
export type ConsiderOutcome = 'new-cell' | 'replaced' | 'rejected';

const EliteSnapshotSchema = z.strictObject({
  id: z.string().min(1),
  codeHash: z.string().min(1),
  fitness: z.number(),
  cell: z.string(),
  // JSON has no NaN or Infinity: non-finite features are stored as null.
  features: z.record(z.string(), z.number().nullable()),
});

export const ArchiveSnapshotSchema = z.strictObject({
  version: z.literal(1),
  features: FeatureSpaceSchema,
  elites: z.array(EliteSnapshotSchema),
});

/** Plain JSON form of one archive, for checkpoints (the caller stores it). */
export interface ArchiveSnapshot {
  version: 1;
  features: FeatureSpaceConfig;
  elites: { id: string; codeHash: string; fitness: number; cell: string; features: Record<string, number | null> }[];
}

/**
 * One island's MAP-Elites archive: at most one elite per cell of the feature
 * grid, and never two elites with the same code.
 *
 * An occupied cell changes hands only to a strictly better (lower) fitness;
 * on a tie the incumbent stays, so the result depends on insertion order in a
 * deterministic way and an archive's best can never get worse.
 */
export class Archive {
  readonly space: FeatureSpace;
  private readonly byCell = new Map<string, Elite>();
  private readonly codeHashes = new Set<string>();

  constructor(space: FeatureSpace | FeatureSpaceInput = new FeatureSpace()) {
    this.space = space instanceof FeatureSpace ? space : new FeatureSpace(space);
  }

  /**
   * Offer a candidate to its cell. Code already held by this archive is
   * rejected whatever its fitness: the same program twice would only take a
   * second cell away from diversity.
   */
  consider(candidate: Candidate): ConsiderOutcome {
    const cell = this.space.cellOf(candidate.features);
    const elite = freezeElite(candidate, cell);
    if (this.codeHashes.has(elite.codeHash)) return 'rejected';
    const incumbent = this.byCell.get(cell);
    if (incumbent && !(elite.fitness < incumbent.fitness)) return 'rejected';
    if (incumbent) this.codeHashes.delete(incumbent.codeHash);
    this.byCell.set(cell, elite);
    this.codeHashes.add(elite.codeHash);
    return incumbent ? 'replaced' : 'new-cell';
  }

  get size(): number {
    return this.byCell.size;
  }

  /** The elite holding a cell, if any. */
  get(cell: string): Elite | undefined {
    return this.byCell.get(cell);
  }

  /** The best elite (lowest fitness; ties by id), or undefined when empty. */
  best(): Elite | undefined {
    return bestOf(this.byCell.values());
  }

  /** All elites, best first (fitness, then id): an order that does not depend on insertion history. */
  elites(): Elite[] {
    return [...this.byCell.values()].sort(compareElites);
  }

  /** Code hashes present (a copy). */
  get hashes(): ReadonlySet<string> {
    return new Set(this.codeHashes);
  }

  hasHash(codeHash: string): boolean {
    return this.codeHashes.has(codeHash);
  }

  toJSON(): ArchiveSnapshot {
    return {
      version: 1,
      features: structuredClone(this.space.config),
      elites: this.elites().map((e) => ({
        id: e.id,
        codeHash: e.codeHash,
        fitness: e.fitness,
        cell: e.cell,
        features: Object.fromEntries(Object.entries(e.features).map(([k, v]) => [k, Number.isFinite(v) ? v : null])),
      })),
    };
  }

  /**
   * Rebuild from toJSON's output (after a JSON round trip). Cells are taken
   * from the snapshot rather than recomputed, since a feature stored as null
   * may have been +-Infinity; each must still name a cell of the stored grid.
   */
  static restore(snapshot: unknown, field = 'archive'): Archive {
    const parsed = parseOrThrow(ArchiveSnapshotSchema, snapshot, { field });
    const archive = new Archive(parsed.features);
    parsed.elites.forEach((e, i) => {
      const where = { field: `${field}.elites.${i}` };
      if (!archive.space.isCell(e.cell)) throw new InputError(`"${e.cell}" is not a cell of the stored feature space`, where);
      if (archive.byCell.has(e.cell)) throw new InputError(`cell ${e.cell} appears twice`, where);
      if (archive.codeHashes.has(e.codeHash)) throw new InputError(`code hash ${e.codeHash} appears twice`, where);
      const features = Object.fromEntries(Object.entries(e.features).map(([k, v]) => [k, v ?? Number.NaN]));
      archive.byCell.set(e.cell, freezeElite({ ...e, features }, e.cell));
      archive.codeHashes.add(e.codeHash);
    });
    return archive;
  }
}
