import { z } from 'zod';

/**
 * Building blocks shared by the profile schemas. Profiles are hand-written
 * JSON with assumed values, and JSON has no comments, so every object may
 * carry a `_comment` string and the top level a `notes` object mapping a
 * field path (e.g. `decode.d0`) to why that value was chosen.
 */

export const positive = () => z.number().positive();
export const nonNegative = () => z.number().min(0);
export const positiveInt = () => z.number().int().positive();

/** A strict object (typos fail loudly) that may also carry a `_comment`. */
export function section<S extends z.ZodRawShape>(shape: S) {
  return z.strictObject({ ...shape, _comment: z.string().optional() });
}

/** Field path -> why the value is what it is. */
export const NotesSchema = z.record(z.string(), z.string());

/**
 * Every key of `notes` must name a field of the profile, so that a renamed
 * field cannot leave its explanation behind unnoticed.
 */
export function checkNotes(profile: Record<string, unknown>, ctx: z.RefinementCtx): void {
  const notes = profile.notes as Record<string, string> | undefined;
  if (!notes) return;
  for (const key of Object.keys(notes)) {
    if (!hasPath(profile, key)) {
      ctx.addIssue({ code: 'custom', path: ['notes', key], message: `note for "${key}", which is not a field of this profile` });
    }
  }
}

function hasPath(root: unknown, dotted: string): boolean {
  let cur: unknown = root;
  for (const part of dotted.split('.')) {
    if (cur === null || typeof cur !== 'object' || !Object.hasOwn(cur, part)) return false;
    cur = (cur as Record<string, unknown>)[part];
  }
  return true;
}

/** Dotted paths of all numeric leaves, e.g. `decode.d0` (used to check every value has a note). */
export function numericLeafPaths(value: unknown, prefix = ''): string[] {
  if (typeof value === 'number') return [prefix];
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [];
  const out: string[] = [];
  for (const [key, child] of Object.entries(value)) {
    if (key === 'notes') continue;
    out.push(...numericLeafPaths(child, prefix ? `${prefix}.${key}` : key));
  }
  return out;
}
