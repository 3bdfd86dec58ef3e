import { createHash, randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import { InfrastructureError, UsageError } from '../common/errors.js';

/**
 * The staging area for hot-swaps (design section 1): the control plane
 * writes a policy file, the data plane picks it up at its next monitoring
 * step.
 *
 * A staged file is `<dir>/<seq>-<name>.js`: a header line
 * `// autopoiesis-staged {json}` carrying the sha256 of the rest of the file
 * (the policy's code) and the candidate it comes from, then the code. It is
 * written to a temporary file in the same directory (name starting with a
 * dot), flushed, then renamed into place, so a reader sees a whole file or
 * none. A reader also checks the hash, so a file copied in by hand that is
 * not complete yet, or was changed after staging, is ignored.
 *
 * Once read, a file is moved out of the staging directory, next to it:
 * `deployed/` when the data plane accepted it, `rejected/` when it failed
 * validation or a newer file superseded it. Each file is considered once.
 * One writer at a time (the control plane) is assumed.
 */

export const STAGED_HEADER_PREFIX = '// autopoiesis-staged ';
const FORMAT = 'autopoiesis-staged';

export const StagedHeaderSchema = z.looseObject({
  format: z.literal(FORMAT),
  version: z.literal(1),
  /** sha256 (hex) of the code: every byte after the header line's newline. */
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  name: z.string().min(1),
  /** The candidate in the lineage database, or null (a policy not from a run). */
  candidateId: z.number().int().nonnegative().nullable(),
  /** Its fitness (T_total) on the snapshot it won on, if known. */
  fitness: z.number().optional(),
  /** The evolution cycle that produced it, if any. */
  cycle: z.number().int().nonnegative().optional(),
  /** Why it was staged, for the lineage (e.g. "beat the deployed policy by 4.1% on the snapshot"). */
  reason: z.string().optional(),
});
export type StagedHeader = z.output<typeof StagedHeaderSchema>;

/** What the control plane stages. */
export interface StageRequest {
  /** The policy's source (a plain script defining shouldReschedule and schedule). */
  code: string;
  /** A short name; characters other than letters, digits, `.`, `_`, `-` become `-` in the file name. */
  name: string;
  candidateId: number | null;
  fitness?: number;
  cycle?: number;
  reason?: string;
}

/** A complete staged file, read and checked. */
export interface StagedPolicy {
  /** Where the file is now. */
  path: string;
  seq: number;
  name: string;
  code: string;
  sha256: string;
  candidateId: number | null;
  fitness?: number;
  cycle?: number;
  reason?: string;
}

export interface StagedRead {
  /** The newest complete file, still in the staging directory until settled. */
  latest: StagedPolicy | null;
  /** Older complete files, already moved to `rejected/`: a newer one replaced them unseen. */
  superseded: StagedPolicy[];
  /** File names ignored this time: incomplete, not ours, or tampered with (left in place). */
  ignored: string[];
}

export type StagedOutcome = 'deployed' | 'rejected';

const STAGED_NAME = /^(\d+)-([A-Za-z0-9._-]+)\.js$/;

/** Where settled files of a staging directory go. */
export function settledDir(stagingDir: string, outcome: StagedOutcome): string {
  return join(stagingDir, '..', outcome);
}

export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * Stage a policy atomically: temporary file, fsync, rename. Returns the
 * file's path, its sequence number (newer files have higher numbers) and
 * the code's hash.
 */
export function stagePolicy(dir: string, request: StageRequest): { path: string; seq: number; sha256: string } {
  if (typeof request.code !== 'string' || request.code.length === 0) throw new UsageError('a staged policy needs its code');
  const name = safeName(request.name);
  const hash = sha256(request.code);
  const header: StagedHeader = {
    format: FORMAT,
    version: 1,
    sha256: hash,
    name: request.name,
    candidateId: request.candidateId,
    ...(request.fitness !== undefined ? { fitness: request.fitness } : {}),
    ...(request.cycle !== undefined ? { cycle: request.cycle } : {}),
    ...(request.reason !== undefined ? { reason: request.reason } : {}),
  };
  const checked = StagedHeaderSchema.safeParse(header);
  if (!checked.success) throw new UsageError(`staged policy ${request.name}: ${checked.error.issues[0]!.path.join('.')}: ${checked.error.issues[0]!.message}`);
  const text = `${STAGED_HEADER_PREFIX}${JSON.stringify(header)}\n${request.code}`;
  try {
    mkdirSync(dir, { recursive: true });
    const seq = nextSeq(dir);
    const file = `${String(seq).padStart(6, '0')}-${name}.js`;
    const tmp = join(dir, `.${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
    const fd = openSync(tmp, 'wx');
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    const path = join(dir, file);
    try {
      renameSync(tmp, path);
    } catch (error) {
      if (existsSync(tmp)) unlinkSync(tmp);
      throw error;
    }
    return { path, seq, sha256: hash };
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new InfrastructureError(`cannot stage ${request.name} in ${dir}: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * Reads a staging directory. Keeps a note of the files it ignored (by size
 * and modification time) so that a file that stays incomplete is not hashed
 * again at every monitoring step.
 */
export class StagingArea {
  private readonly ignoredNotes = new Map<string, string>();

  constructor(readonly dir: string) {}

  /** The newest complete staged file; older complete ones are moved to `rejected/`. */
  take(): StagedRead {
    const read: StagedRead = { latest: null, superseded: [], ignored: [] };
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return read;
      throw new InfrastructureError(`cannot read the staging directory ${this.dir}: ${(error as Error).message}`, { cause: error });
    }
    const candidates = names
      .map((file) => ({ file, m: STAGED_NAME.exec(file) }))
      .filter((c): c is { file: string; m: RegExpExecArray } => c.m !== null)
      .map((c) => ({ file: c.file, seq: Number(c.m[1]) }))
      .sort((a, b) => b.seq - a.seq || (a.file < b.file ? 1 : -1));
    const seen = new Set<string>();
    for (const { file, seq } of candidates) {
      seen.add(file);
      const path = join(this.dir, file);
      const note = this.noteOf(path);
      if (note === null) continue; // gone meanwhile
      if (this.ignoredNotes.get(file) === note) {
        read.ignored.push(file);
        continue;
      }
      const entry = parseStaged(path, seq);
      if (!entry) {
        this.ignoredNotes.set(file, note);
        read.ignored.push(file);
        continue;
      }
      this.ignoredNotes.delete(file);
      if (!read.latest) read.latest = entry;
      else read.superseded.push(this.settle(entry, 'rejected'));
    }
    for (const file of this.ignoredNotes.keys()) if (!seen.has(file)) this.ignoredNotes.delete(file);
    return read;
  }

  /** Move a file taken from staging to `deployed/` or `rejected/`; returns the entry with its new path. */
  settle(entry: StagedPolicy, outcome: StagedOutcome): StagedPolicy {
    const target = settledDir(this.dir, outcome);
    try {
      mkdirSync(target, { recursive: true });
      let path = join(target, basename(entry.path));
      for (let n = 1; existsSync(path); n++) path = join(target, basename(entry.path, '.js') + `.${n}.js`);
      renameSync(entry.path, path);
      return { ...entry, path };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' && !existsSync(entry.path)) return entry; // someone else moved it
      throw new InfrastructureError(`cannot move ${entry.path} to ${target}: ${(error as Error).message}`, { cause: error });
    }
  }

  private noteOf(path: string): string | null {
    try {
      const st = statSync(path);
      return st.isFile() ? `${st.size}:${st.mtimeMs}` : null;
    } catch {
      return null;
    }
  }
}

/** One-shot read of a staging directory (see StagingArea.take). */
export function readStaged(dir: string): StagedRead {
  return new StagingArea(dir).take();
}

/** Move a taken file to `deployed/` or `rejected/` next to its staging directory. */
export function settleStaged(entry: StagedPolicy, outcome: StagedOutcome): StagedPolicy {
  return new StagingArea(dirname(entry.path)).settle(entry, outcome);
}

/** A staged file's header and code, or null when it is incomplete, not ours, or its code does not match its hash. */
export function parseStaged(path: string, seq: number): StagedPolicy | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return null;
  }
  if (!text.startsWith(STAGED_HEADER_PREFIX)) return null;
  const nl = text.indexOf('\n');
  if (nl < 0) return null;
  let json: unknown;
  try {
    json = JSON.parse(text.slice(STAGED_HEADER_PREFIX.length, nl));
  } catch {
    return null;
  }
  const header = StagedHeaderSchema.safeParse(json);
  if (!header.success) return null;
  const code = text.slice(nl + 1);
  if (sha256(code) !== header.data.sha256) return null;
  const h = header.data;
  return {
    path,
    seq,
    name: h.name,
    code,
    sha256: h.sha256,
    candidateId: h.candidateId,
    ...(h.fitness !== undefined ? { fitness: h.fitness } : {}),
    ...(h.cycle !== undefined ? { cycle: h.cycle } : {}),
    ...(h.reason !== undefined ? { reason: h.reason } : {}),
  };
}

function safeName(name: string): string {
  if (typeof name !== 'string' || name.trim() === '') throw new UsageError('a staged policy needs a name');
  const safe = name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[.-]+/, '').slice(0, 64);
  return safe === '' ? 'policy' : safe;
}

/** One more than the highest sequence number in the staging directory or already settled. */
function nextSeq(dir: string): number {
  let max = 0;
  for (const d of [dir, settledDir(dir, 'deployed'), settledDir(dir, 'rejected')]) {
    let names: string[] = [];
    try {
      names = readdirSync(d);
    } catch {
      continue;
    }
    for (const file of names) {
      const m = STAGED_NAME.exec(file) ?? /^\.(\d+)-/.exec(file);
      if (m) max = Math.max(max, Number(m[1]));
    }
  }
  return max + 1;
}
