import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { InputError, UsageError } from '../../common/errors.js';
import { packageRoot } from '../../common/package-root.js';
import { buildSnapshotFromStrings, type Snapshot } from '../../evaluate/index.js';
import type { EvolveConfig } from './config.js';

/** The snapshots a run trains and validates on. */
export interface SnapshotPlan {
  train: Snapshot[];
  validation: Snapshot[];
}

/**
 * `--validate-seeds`: at least one, whole numbers >= 0, no repeats, none a
 * training seed (a validation realisation must be one the run never saw).
 */
export function checkValidateSeeds(seeds: readonly number[], trainingSeeds: readonly number[], flag = '--validate-seeds'): void {
  const seen = new Set<number>();
  for (const s of seeds) {
    if (!Number.isInteger(s) || s < 0) throw new UsageError(`${flag}: ${s} is not a whole number >= 0`);
    if (seen.has(s)) throw new UsageError(`${flag}: seed ${s} is listed twice`);
    if (trainingSeeds.includes(s)) throw new UsageError(`${flag}: seed ${s} is the training seed; validation must use other realisations`);
    seen.add(s);
  }
}

/** Window w of k of a run scored for `minutes` after `warmup`: the earlier windows become warm-up. */
export function windowOf(warmupMinutes: number, minutes: number, w: number, k: number): { warmupMinutes: number; minutes: number } {
  return { warmupMinutes: warmupMinutes + (w * minutes) / k, minutes: minutes / k };
}

/** A run on the workload strings (no scenario): its windows at its seed, and the same windows at each validation seed. */
export function stringsPlan(config: EvolveConfig): SnapshotPlan {
  checkValidateSeeds(config.validateSeeds, [config.seed]);
  const at = (seed: number) =>
    Array.from({ length: config.windows }, (_, w) =>
      buildSnapshotFromStrings({
        workload: config.workload,
        agents: config.agents,
        nodes: config.nodes,
        split: config.split,
        nodeKinds: config.nodeKinds,
        mechanics: config.mechanics,
        ...windowOf(config.warmupMinutes, config.windowMinutes, w, config.windows),
        seed,
      }),
    );
  return { train: at(config.seed), validation: config.validateSeeds.flatMap(at) };
}

/** The reference policy's code: `--reference`, else evolving-infra.js of the seeds folder, else of the shipped seeds. */
export function referencePolicy(config: Pick<EvolveConfig, 'reference' | 'seedsDir'>): { file: string; code: string } {
  const file = config.reference ?? [join(config.seedsDir, 'evolving-infra.js'), join(packageRoot(), 'seeds', 'evolving-infra.js')].find((f) => existsSync(f))!;
  if (!file || !existsSync(file)) throw new InputError('reference policy not found', { file: file ?? config.seedsDir, field: '--reference' });
  return { file, code: readFileSync(file, 'utf8') };
}

/** Labels that tell a run's snapshots apart in the lineage: the snapshot's own label, its seed and its scored window. */
export function snapshotLabel(s: Snapshot): string {
  const from = s.warmupSeconds / 60;
  return `${s.label} seed ${s.seed} min ${round(from)}-${round(from + s.windowSeconds / 60)}`;
}

function round(x: number): string {
  return String(Math.round(x * 100) / 100);
}
