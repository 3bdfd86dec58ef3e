import type { Evaluation, SchedCost, Snapshot } from '../../evaluate/index.js';
import type { SandboxOptions } from '../../sandbox/index.js';
import type { PackedSnapshot } from './packed-snapshot.js';

/** Given once to every worker (structured-cloned at pool start). */
export interface WorkerSetup {
  snapshot: Snapshot;
  schedCost: SchedCost;
  sandbox: SandboxOptions;
  wallLimitMs: number;
}

/** What a worker receives: the snapshot itself, or packed (EvaluatorPool.open). */
export type WorkerData = Omit<WorkerSetup, 'snapshot'> & ({ snapshot: Snapshot; packed?: undefined } | { snapshot?: undefined; packed: PackedSnapshot });

export interface EvalTask {
  kind?: 'evaluate';
  candidateId: number;
  name: string;
  code: string;
}

/** What a worker returns: never throws for a bad candidate, only for a broken worker. */
export type EvalOutcome =
  | { ok: true; evaluation: Evaluation; wallMs: number }
  | { ok: false; kind: 'timeout' | 'crash'; message: string; wallMs: number };

/** Sent once to every worker before the pool closes (see worker.ts). */
export interface DrainTask {
  kind: 'drain';
  barrier: SharedArrayBuffer;
  workers: number;
}

export type WorkerTask = EvalTask | DrainTask;
