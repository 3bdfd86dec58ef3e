import { prepared, type Db } from './connection.js';
import type { DeploymentRecord, NewDeployment } from './types.js';

/** Hot-swaps of the continuous mode: which candidate served from when, and what it replaced. */

interface DeploymentRow {
  id: number;
  run: number;
  cycle: number | null;
  candidate: number;
  deployed_at: number;
  fitness_on_snapshot: number | null;
  replaced_candidate: number | null;
  rolled_back_at: number | null;
  reason: string | null;
  rollback_reason: string | null;
  created_at: string;
}

const DEPLOYMENT_COLUMNS =
  'id, run, cycle, candidate, deployed_at, fitness_on_snapshot, replaced_candidate, rolled_back_at, reason, rollback_reason, created_at';

export function insertDeployment(db: Db, d: NewDeployment): number {
  const result = prepared(
    db,
    `INSERT INTO deployments (run, cycle, candidate, deployed_at, fitness_on_snapshot, replaced_candidate, reason)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  ).run(d.run, d.cycle ?? null, d.candidate, d.deployedAt, d.fitnessOnSnapshot ?? null, d.replacedCandidate ?? null, d.reason ?? null);
  return Number(result.lastInsertRowid);
}

/**
 * Record that a deployment was rolled back at `at` (simulated seconds).
 * Returns false when there is no such deployment or it was already rolled
 * back: the first rollback's time and reason are kept.
 */
export function markRolledBack(db: Db, id: number, at: number, reason?: string): boolean {
  const result = prepared(
    db,
    'UPDATE deployments SET rolled_back_at = ?, rollback_reason = ? WHERE id = ? AND rolled_back_at IS NULL',
  ).run(at, reason ?? null, id);
  return result.changes > 0;
}

/** The run's latest deployment (by time, then id) that was not rolled back, if any. */
export function currentDeployment(db: Db, runId: number): DeploymentRecord | undefined {
  const row = prepared<DeploymentRow>(
    db,
    `SELECT ${DEPLOYMENT_COLUMNS} FROM deployments WHERE run = ? AND rolled_back_at IS NULL ORDER BY deployed_at DESC, id DESC LIMIT 1`,
  ).get(runId);
  return row && toDeployment(row);
}

/** Deployments in the order they happened, of one run or of all. */
export function listDeployments(db: Db, runId?: number): DeploymentRecord[] {
  const rows =
    runId === undefined
      ? prepared<DeploymentRow>(db, `SELECT ${DEPLOYMENT_COLUMNS} FROM deployments ORDER BY deployed_at, id`).all()
      : prepared<DeploymentRow>(db, `SELECT ${DEPLOYMENT_COLUMNS} FROM deployments WHERE run = ? ORDER BY deployed_at, id`).all(runId);
  return rows.map(toDeployment);
}

function toDeployment(row: DeploymentRow): DeploymentRecord {
  return {
    id: row.id,
    run: row.run,
    cycle: row.cycle,
    candidate: row.candidate,
    deployedAt: row.deployed_at,
    fitnessOnSnapshot: row.fitness_on_snapshot,
    replacedCandidate: row.replaced_candidate,
    rolledBackAt: row.rolled_back_at,
    reason: row.reason,
    rollbackReason: row.rollback_reason,
    createdAt: row.created_at,
  };
}
