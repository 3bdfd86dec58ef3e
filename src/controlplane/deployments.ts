import { InputError } from '../common/errors.js';
import { codeHash, type DeploymentRecord, type LineageStore } from '../store/index.js';

/** A hot-swap the data plane made, as `serve` reports it. */
export interface DeploymentInput {
  /** The candidate now serving (a staged winner, or the registered starting policy). */
  candidateId: number;
  /** Simulated seconds when it was swapped in. */
  at: number;
  /** The cycle whose winner it is; null/absent for the starting policy or a hand-written one. */
  cycleId?: number | null;
  /** Its T_total on the cycle's snapshot; default: the cycle's best T_total when it is that cycle's winner. */
  fitnessOnSnapshot?: number | null;
  /** Default: the candidate of the current deployment (what it replaced); null when nothing was deployed. */
  replacedCandidate?: number | null;
  reason?: string;
}

export interface RollbackInput {
  /** Simulated seconds. */
  at: number;
  reason?: string;
  /** Default: the current deployment. */
  deploymentId?: number;
}

/**
 * Where a policy that is not an evolved candidate comes from: 'deployed', the
 * run's starting policy; 'external', a policy an engineer staged by hand (a
 * hotfix). Both are candidate rows (so deployments can name them) with that
 * mutator, status 'rejected' and failure kind 'unscored': no snapshot scored
 * them when they were registered; a cycle scores the deployed one on its own
 * snapshot (rows of mutator 'deployed' whose parent is this one).
 */
export type PolicyOrigin = 'deployed' | 'external';

/**
 * The candidate row of a policy of the run: the existing row when its code (up
 * to whitespace) already has one in the run, else a new row (see PolicyOrigin).
 */
export function registerPolicy(store: LineageStore, runId: number, iteration: number, policy: { name: string; code: string }, origin: PolicyOrigin): number {
  const existing = store.findByCodeHash(runId, codeHash(policy.code));
  if (existing) return existing.id;
  return store.insertCandidate({
    run: runId,
    iteration: Math.max(0, iteration),
    cycle: null,
    island: 0,
    mutator: origin,
    editSummary: origin === 'deployed' ? `policy ${policy.name}, deployed as given` : `policy ${policy.name}, staged by hand (not evolved in this run)`,
    code: policy.code,
    status: 'rejected',
    failureKind: 'unscored',
    failureMessage:
      origin === 'deployed'
        ? "registered as a deployed policy before any snapshot; each cycle scores it on its snapshot (rows of mutator 'deployed' whose parent is this one)"
        : 'registered when the data plane deployed it from the staging directory; a cycle scores it on its snapshot once it serves',
  });
}

/**
 * Record a deployment. What it replaced and its fitness on the snapshot are
 * filled in from the lineage when not given. InputError for a candidate or
 * cycle that is not of this run (a bug in the caller, nothing written).
 */
export function recordDeployment(store: LineageStore, runId: number, input: DeploymentInput): DeploymentRecord {
  const candidate = store.getCandidate(input.candidateId);
  if (!candidate || candidate.run !== runId) throw new InputError(`candidate ${input.candidateId} is not of run ${runId}`, { field: 'deployment.candidateId' });
  const cycle = input.cycleId != null ? store.getCycle(input.cycleId) : undefined;
  if (input.cycleId != null && (!cycle || cycle.run !== runId)) throw new InputError(`cycle ${input.cycleId} is not of run ${runId}`, { field: 'deployment.cycleId' });
  const current = store.currentDeployment(runId);
  const replaced = input.replacedCandidate !== undefined ? input.replacedCandidate : (current?.candidate ?? null);
  const fitness =
    input.fitnessOnSnapshot !== undefined ? input.fitnessOnSnapshot : cycle && cycle.winner === input.candidateId ? cycle.bestFitness : null;
  const id = store.insertDeployment({
    run: runId,
    cycle: input.cycleId ?? null,
    candidate: input.candidateId,
    deployedAt: input.at,
    fitnessOnSnapshot: fitness,
    replacedCandidate: replaced,
    reason: input.reason ?? defaultReason(cycle),
  });
  return store.listDeployments(runId).find((d) => d.id === id)!;
}

/**
 * Record that a deployment was rolled back (the data plane went back to the
 * policy it had replaced). The current deployment is then the latest one not
 * rolled back. InputError when there is nothing to roll back.
 */
export function recordRollback(store: LineageStore, runId: number, input: RollbackInput): { rolledBack: DeploymentRecord; current: DeploymentRecord | undefined } {
  const target = input.deploymentId ?? store.currentDeployment(runId)?.id;
  if (target === undefined) throw new InputError(`run ${runId} has no deployment to roll back`, { field: 'rollback' });
  const record = store.listDeployments(runId).find((d) => d.id === target);
  if (!record) throw new InputError(`deployment ${target} is not of run ${runId}`, { field: 'rollback.deploymentId' });
  if (!store.markRolledBack(target, input.at, input.reason)) throw new InputError(`deployment ${target} was already rolled back`, { field: 'rollback.deploymentId' });
  return { rolledBack: store.listDeployments(runId).find((d) => d.id === target)!, current: store.currentDeployment(runId) };
}

/** Code hashes of the run's candidates that were deployed and then rolled back: not staged again. */
export function rolledBackHashes(store: LineageStore, runId: number): Set<string> {
  const hashes = new Set<string>();
  for (const d of store.listDeployments(runId)) {
    if (d.rolledBackAt === null) continue;
    const row = store.getCandidate(d.candidate);
    if (row) hashes.add(row.codeHash);
  }
  return hashes;
}

function defaultReason(cycle: { id: number; bestFitness: number | null; deployedFitness: number | null } | undefined): string {
  if (!cycle) return 'initial policy';
  if (cycle.bestFitness === null || cycle.deployedFitness === null) return `winner of cycle ${cycle.id}`;
  const pct = ((cycle.deployedFitness - cycle.bestFitness) / cycle.deployedFitness) * 100;
  return `winner of cycle ${cycle.id}: T_total ${cycle.bestFitness.toFixed(2)} s vs ${cycle.deployedFitness.toFixed(2)} s for the deployed policy on its snapshot (${pct.toFixed(1)}% lower)`;
}
