import type { Evaluation, SchedCost, Snapshot } from '../../evaluate/index.js';
import type { SandboxOptions } from '../../sandbox/index.js';

/** Given once to every worker (structured-cloned at pool start). */
export interface WorkerSetup {
  snapshot: Snapshot;
  schedCost: SchedCost;
  sandbox: SandboxOptions;
  wallLimitMs: number;
}

export interface EvalTask {
  candidateId: number;
  name: string;
  code: string;
}

/** What a worker returns: never throws for a bad candidate, only for a broken worker. */
export type EvalOutcome =
  | { ok: true; evaluation: Evaluation; wallMs: number }
  | { ok: false; kind: 'timeout' | 'crash'; message: string; wallMs: number };
