import { Rng } from '../common/rng.js';
import { CTX_VERSION, type Ctx, type KindModel, type Role } from './schema.js';

/**
 * A realistic ctx (default 9 GB300 nodes on 4P5D, ten 60 s slices of a
 * coding-agent load) for tests, benchmarks and examples in prompts. Values
 * vary with the seed but every one is plausible; nothing here is calibrated.
 */
export interface SampleCtxOptions {
  nodes?: number;
  slices?: number;
  prefillNodes?: number;
  now?: number;
  seed?: number;
}

export const SAMPLE_GB300_MODEL: KindModel = {
  prefill: { c0: 0.018, c1: 2.2e-5, c2: 1.1e-10, c3: 1.5e-6 },
  decode: { d0: 0.011, d1: 0.012, d2: 9e-5 },
  kFraction: 8 / 256,
  tFwd: 2,
  tAcc: 1.6,
  maxDecodeBatch: 128,
};

export function sampleCtx(options: SampleCtxOptions = {}): Ctx {
  const nodeCount = options.nodes ?? 9;
  const sliceCount = options.slices ?? 10;
  const prefillNodes = options.prefillNodes ?? Math.floor(nodeCount * 0.45);
  const now = options.now ?? 3600;
  const seed = options.seed ?? 1;
  const rng = new Rng(seed);
  const roles: Role[] = Array.from({ length: nodeCount }, (_, i) => (i < prefillNodes ? 'P' : 'D'));
  const sliceSeconds = 60;
  return {
    version: CTX_VERSION,
    now,
    seed,
    plan: { roles: [...roles] },
    // The evolving-infra preset with the routers' default tuning (src/sim/routing/prefill.ts).
    mechanics: {
      transition: 'symmetric',
      pool: 'shared',
      fetch: 'async',
      routing: { prefill: 'predicted-ttft', decode: 'least-loaded', fetchExcessWeight: 1, duplicateCopyPenalty: 2e-5, affinityBalanceAbs: 32, affinityBalanceRel: 1.1, affinityMatch: 0.5 },
      eviction: { order: 'refcount', protectWaiting: 'both' },
      transitions: { maxConcurrent: null },
      batching: { maxPrefillTokens: null },
    },
    nodes: roles.map((role, id) => ({
      id,
      kind: 'gb300',
      state: 'active' as const,
      role,
      queueLength: role === 'P' ? rng.int(0, 6) : rng.int(0, 3),
      running: role === 'P' ? rng.int(1, 4) : rng.int(20, 90),
      kv: {
        l1Used: Math.round(rng.uniform(0.5, 0.95) * 1_200_000),
        l1Capacity: 1_200_000,
        l2Used: Math.round(rng.uniform(0.3, 0.9) * 9_000_000),
        l2Capacity: 9_000_000,
      },
      // Drawn without the rng, so every other figure stays as in contract v1.
      prefill: role === 'P' ? { queueWaitSeconds: 0.4 + 0.1 * id, fetchBacklogSeconds: 0.05 * id } : null,
    })),
    window: {
      sliceSeconds,
      slices: Array.from({ length: sliceCount }, (_, i) => {
        const start = now - (sliceCount - i) * sliceSeconds;
        const arrivals = rng.int(300, 420);
        return {
          start,
          end: start + sliceSeconds,
          arrivals,
          completions: arrivals - rng.int(-10, 10),
          meanUncachedTokens: rng.uniform(1500, 4000),
          meanCachedTokens: rng.uniform(25_000, 60_000),
          meanOutputTokens: rng.uniform(300, 700),
          meanAcceptedPerIter: rng.uniform(1.4, 1.8),
          meanPrefillQueue: rng.uniform(2, 12),
          meanDecodeQueue: rng.uniform(150, 400),
          ttftP50: rng.uniform(0.4, 1.2),
          ttftP95: rng.uniform(2, 6),
          e2eP50: rng.uniform(8, 15),
          e2eP95: rng.uniform(25, 60),
          kvHitRate: rng.uniform(0.8, 0.95),
          // Drawn without the rng, so every other figure stays as in contract v1.
          lostKvReuse: 0.02 + 0.001 * i,
          kvUnreferencedShare: 0.6,
        };
      }),
    },
    model: { byKind: { gb300: SAMPLE_GB300_MODEL } },
    transitions: [{ node: prefillNodes, from: 'P', to: 'D', start: now - 900, end: now - 880 }],
    membership: [],
    lastRescheduleAt: now - 900,
    limits: { minPrefill: 1, minDecode: 1 },
  };
}
