import { round, type SimMetrics } from '../sim/index.js';
import type { RunMetric } from './targets-schema.js';

/** A run metric in the unit CALIBRATION.md uses (percentages as 0..100). */
export function metricValue(m: SimMetrics, metric: RunMetric): number {
  switch (metric) {
    case 'throughput':
      return m.throughput;
    case 'ttft.mean':
      return m.ttft.mean;
    case 'ttft.p95':
      return m.ttft.p95;
    case 'e2e.mean':
      return m.e2e.mean;
    case 'e2e.p95':
      return m.e2e.p95;
    case 'kvHit.actual':
      return round(m.kvHitRate.actual * 100, 2);
    case 'kvHit.ideal':
      return round(m.kvHitRate.ideal * 100, 2);
    case 'lostKvReuse':
      return m.lostKvReusePct;
    case 'uncachedTokens':
      return m.uncachedTokensPerRequest;
    case 'prefillIdle':
      return m.prefillIdlePct;
    case 'tpot':
      return m.tpotMs;
    case 'prefillQueueWait.p50':
      return m.prefillQueueWait.p50;
  }
}

export const METRIC_LABELS: Record<RunMetric, { label: string; unit: string }> = {
  throughput: { label: 'throughput', unit: 'req/s' },
  'ttft.mean': { label: 'TTFT mean', unit: 's' },
  'ttft.p95': { label: 'TTFT P95', unit: 's' },
  'e2e.mean': { label: 'E2E mean', unit: 's' },
  'e2e.p95': { label: 'E2E P95', unit: 's' },
  'kvHit.actual': { label: 'KV hit rate actual', unit: '%' },
  'kvHit.ideal': { label: 'KV hit rate ideal', unit: '%' },
  lostKvReuse: { label: 'lost KV reuse', unit: '%' },
  uncachedTokens: { label: 'uncached prompt tokens/request', unit: 'tokens' },
  prefillIdle: { label: 'prefill node idle GPU time', unit: '%' },
  tpot: { label: 'TPOT mean', unit: 'ms' },
  'prefillQueueWait.p50': { label: 'prefill queue wait median', unit: 's' },
};
