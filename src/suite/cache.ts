import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { OracleResult } from './oracle-result.js';

/** Bumped when the stored shape or the oracles' definition changes: old files stop matching. */
export const ORACLE_FORMAT = 1;

/** What an oracle result depends on; its hash names the cache file. */
export interface OracleKeyInput {
  /** The scenario's content hash, or a hash of the snapshot itself. */
  contentHash: string;
  seed: number;
  codeVersion: string;
  capFactor: number;
  windowSeconds: number;
}

export function oracleKey(input: OracleKeyInput): string {
  const canonical = JSON.stringify([ORACLE_FORMAT, input.contentHash, input.seed, input.codeVersion, input.capFactor, input.windowSeconds]);
  return createHash('sha256').update(canonical).digest('hex').slice(0, 24);
}

const SliceSchema = z.object({ start: z.number(), end: z.number(), completions: z.number() });
const RunSchema = z.object({
  split: z.string(),
  rate: z.number(),
  throughput: z.number(),
  completed: z.number(),
  scoredSeconds: z.number(),
  drained: z.boolean(),
  ttftP95: z.number(),
  e2eMean: z.number(),
  tTotal: z.number(),
  slices: z.array(SliceSchema),
});
/** A cache file is checked on read: anything else (truncated, older format, edited) is a miss and is recomputed. */
const ResultSchema = z.object({
  format: z.literal(ORACLE_FORMAT),
  key: z.string(),
  name: z.string(),
  seed: z.number(),
  contentHash: z.string(),
  codeVersion: z.string(),
  capFactor: z.number(),
  candidates: z.number(),
  staticBest: z.object({ split: z.string(), throughput: z.number(), ttftP95: z.number(), e2eMean: z.number(), tTotal: z.number(), drained: z.boolean() }),
  window: z.object({
    throughput: z.number(),
    windowSeconds: z.number(),
    from: z.number(),
    to: z.number(),
    windows: z.array(z.object({ start: z.number(), end: z.number(), split: z.string(), completions: z.number() })),
  }),
  runs: z.array(RunSchema),
});

/** Oracle results on disk, one JSON file per key (default folder runs/oracles). */
export class OracleCache {
  constructor(readonly dir: string) {}

  path(key: string): string {
    return join(this.dir, `${key}.json`);
  }

  read(key: string): OracleResult | undefined {
    const file = this.path(key);
    if (!existsSync(file)) return undefined;
    try {
      const parsed = ResultSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
      return parsed.success && parsed.data.key === key ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  }

  /** Atomic: a temp file in the same folder, then rename, so a reader never sees half a result. */
  write(result: OracleResult): void {
    mkdirSync(this.dir, { recursive: true });
    const file = this.path(result.key);
    const tmp = `${file}.tmp-${process.pid}-${Math.floor(performance.now() * 1000)}`;
    writeFileSync(tmp, JSON.stringify(result) + '\n');
    renameSync(tmp, file);
  }
}
