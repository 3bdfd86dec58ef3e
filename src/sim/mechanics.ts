import { z } from 'zod';
import { InputError } from '../common/errors.js';

/**
 * Each mechanic of the data plane is switchable so that the baselines of the
 * published study can be reproduced (design section 3).
 */
export const MechanicsSchema = z.strictObject({
  /** symmetric: role change in place; restart: node out for the profile's restart time, KV lost. */
  transition: z.enum(['symmetric', 'restart']),
  /** shared: pooled host memory, peers read each other's L2; local: each node only its own L1/L2. */
  pool: z.enum(['shared', 'local']),
  /** async: fetch hidden under queue wait; at-start: fetch begins with prefill and adds to it. */
  fetch: z.enum(['async', 'at-start']),
  /** refcount: count-zero blocks first, then LRU; lru: last access only. */
  eviction: z.enum(['refcount', 'lru']),
  prefillRouting: z.enum(['predicted-ttft', 'cache-affinity', 'dynamo-kv', 'even-load', 'session']),
  decodeRouting: z.enum(['least-loaded', 'round-robin']),
});
export type Mechanics = z.infer<typeof MechanicsSchema>;
export type PrefillRouting = Mechanics['prefillRouting'];
export type DecodeRouting = Mechanics['decodeRouting'];

export const MECHANICS_PRESETS = {
  'evolving-infra': {
    transition: 'symmetric',
    pool: 'shared',
    fetch: 'async',
    eviction: 'refcount',
    prefillRouting: 'predicted-ttft',
    decodeRouting: 'least-loaded',
  },
  /** SGLang PD: fixed roles (a policy may still replan; the transition is then in place). */
  'sglang-pd': {
    transition: 'symmetric',
    pool: 'local',
    fetch: 'at-start',
    eviction: 'lru',
    prefillRouting: 'cache-affinity',
    decodeRouting: 'round-robin',
  },
  dynamo: {
    transition: 'restart',
    pool: 'local',
    fetch: 'at-start',
    eviction: 'lru',
    prefillRouting: 'dynamo-kv',
    decodeRouting: 'round-robin',
  },
} as const satisfies Record<string, Mechanics>;
export type MechanicsPresetName = keyof typeof MECHANICS_PRESETS;

/**
 * A preset name, optionally followed by overrides: `sglang-pd,fetch=async`.
 * Unknown names, keys or values are input errors naming the field.
 */
export function parseMechanics(spec: string): Mechanics {
  const [name, ...overrides] = spec.split(',').map((s) => s.trim());
  const base = (MECHANICS_PRESETS as Record<string, Mechanics>)[name ?? ''];
  if (!base) {
    throw new InputError(`unknown mechanics preset "${name}" (known: ${Object.keys(MECHANICS_PRESETS).join(', ')})`, { field: 'mechanics' });
  }
  const merged: Record<string, string> = { ...base };
  for (const item of overrides) {
    const [key, value] = item.split('=');
    if (!key || value === undefined || !(key in base)) {
      throw new InputError(`unknown mechanic override "${item}" (keys: ${Object.keys(base).join(', ')})`, { field: 'mechanics' });
    }
    merged[key] = value;
  }
  const parsed = MechanicsSchema.safeParse(merged);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new InputError(`unknown value for ${issue.path.join('.')}: ${issue.message}`, { field: `mechanics.${issue.path.join('.')}` });
  }
  return parsed.data;
}
