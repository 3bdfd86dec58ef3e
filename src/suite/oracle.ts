import { oracleKey, ORACLE_FORMAT, type OracleCache } from './cache.js';
import type { OracleResult } from './oracle-result.js';
import { splitCandidates, type SplitCandidate } from './candidates.js';
import { availabilityPlacements } from './placement.js';
import { currentCodeVersion } from './code-version.js';
import type { SuiteRunner } from './tasks.js';
import { SUITE_CAP_FACTOR, type SplitRun } from './split-run.js';
import type { SnapshotSource } from './tasks.js';
import type { MembershipChange } from '../sim/index.js';
import { ORACLE_WINDOW_SECONDS, staticBestOf, windowOracle } from './window-oracle.js';

/** What the oracles of one snapshot are computed from. */
export interface OracleInput {
  name: string;
  seed: number;
  /** The scenario's content hash (or a hash of the snapshot): part of the cache key. */
  contentHash: string;
  source: SnapshotSource;
  nodeKinds: string[];
  warmupSeconds: number;
  /** Nodes going down and up (placement candidates, see placement.ts); default none. */
  membership?: MembershipChange[];
  /** The latest end of a run (warm-up + window x cap): how long a node that never comes back counts as down. */
  horizonSeconds?: number;
}


export interface OracleOptions {
  /** The local SuitePool or a queue (QueueSuiteRunner). */
  pool: SuiteRunner;
  cache?: OracleCache;
  /** Default: the hash of the running simulator's code (currentCodeVersion). */
  codeVersion?: string;
  capFactor?: number;
  /** Called once per static run that finishes (not for cached results). */
  onRun?: (run: SplitRun) => void;
  /** Called when the oracles are computed, i.e. the cache missed. */
  onCompute?: (key: string) => void;
}

function oracleKeyOf(input: OracleInput, options: Pick<OracleOptions, 'codeVersion' | 'capFactor'>): string {
  const codeVersion = options.codeVersion ?? currentCodeVersion();
  return oracleKey({ contentHash: input.contentHash, seed: input.seed, codeVersion, capFactor: options.capFactor ?? SUITE_CAP_FACTOR, windowSeconds: ORACLE_WINDOW_SECONDS });
}

/** The cached oracles of this input, if the cache holds them under the current key. */
export function cachedOracles(input: OracleInput, options: Pick<OracleOptions, 'cache' | 'codeVersion' | 'capFactor'>): OracleResult | undefined {
  return options.cache?.read(oracleKeyOf(input, options));
}

/** The static splits the oracles try: every split by kind (candidates.ts), plus availability placements when nodes go down. */
export function oracleCandidates(input: Pick<OracleInput, 'nodeKinds' | 'membership' | 'horizonSeconds'>): SplitCandidate[] {
  const base = splitCandidates(input.nodeKinds);
  const membership = input.membership ?? [];
  const horizon = input.horizonSeconds ?? Math.max(0, ...membership.map((m) => m.at));
  return [...base, ...availabilityPlacements(base, input.nodeKinds, membership, horizon)];
}

/**
 * Both oracles of a snapshot, from the cache when its key (content, seed,
 * code version, cap, window) matches, else computed on the pool (one static
 * run per candidate split, in parallel) and written to the cache.
 */
export async function computeOracles(input: OracleInput, options: OracleOptions): Promise<{ result: OracleResult; fromCache: boolean }> {
  const cached = cachedOracles(input, options);
  if (cached) return { result: cached, fromCache: true };
  const codeVersion = options.codeVersion ?? currentCodeVersion();
  const capFactor = options.capFactor ?? SUITE_CAP_FACTOR;
  const key = oracleKeyOf(input, options);
  options.onCompute?.(key);
  const candidates = oracleCandidates(input);
  const runs = await Promise.all(
    candidates.map(async (c) => {
      const run = await options.pool.run({ kind: 'static', source: input.source, split: c.label, roles: c.roles, capFactor });
      options.onRun?.(run);
      return run;
    }),
  );
  const result: OracleResult = {
    format: ORACLE_FORMAT,
    key,
    name: input.name,
    seed: input.seed,
    contentHash: input.contentHash,
    codeVersion,
    capFactor,
    candidates: candidates.length,
    staticBest: staticBestOf(runs),
    window: windowOracle(runs, input.warmupSeconds),
    runs,
  };
  options.cache?.write(result);
  return { result, fromCache: false };
}
