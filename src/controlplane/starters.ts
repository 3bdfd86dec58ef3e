import type { SeedPolicy, Starter } from '../evolve/engine/index.js';
import { codeHash, type LineageStore } from '../store/index.js';
import type { WarmElite } from './state.js';
import type { DeployedPolicy } from './types.js';

/**
 * What a cycle starts from, in this order: the deployed policy (the bar to
 * beat, scored on the same snapshot in the same pool), then the previous
 * cycle's elites, or, when there are none yet (first cycle, or every earlier
 * cycle failed), the seeds. A starter with the same code as an earlier one is
 * left out, so the deployed policy is scored exactly once and is always
 * starter 0.
 *
 * Each re-scored starter names the row it copies as its parent (the deployed
 * policy's registered row, an elite of the previous cycle), so the lineage
 * reads "this is candidate X again, on cycle N's snapshot".
 */
export function buildStarters(
  store: LineageStore,
  runId: number,
  deployed: DeployedPolicy,
  warmStart: readonly WarmElite[],
  seeds: readonly SeedPolicy[],
): Starter[] {
  // The row it copies: the id the caller gave if the lineage has it, else the run's row with the same code.
  const given = deployed.candidateId !== null && store.getCandidate(deployed.candidateId) ? deployed.candidateId : null;
  const deployedRow = given ?? store.findByCodeHash(runId, codeHash(deployed.code))?.id ?? null;
  const starters: Starter[] = [
    {
      name: deployed.name,
      code: deployed.code,
      mutator: 'deployed',
      editSummary: `deployed policy ${deployed.name}${deployedRow !== null ? ` (candidate ${deployedRow})` : ''}, scored on this cycle's snapshot`,
      parents: deployedRow !== null ? [deployedRow] : [],
    },
  ];
  const elites = warmStart.flatMap((e): Starter[] => {
    const row = store.getCandidate(e.id);
    if (!row) return [];
    return [
      {
        name: `elite-${e.id}`,
        code: row.code,
        mutator: 'warm-start',
        editSummary: `elite ${e.id}${e.cycle !== null ? ` of cycle ${e.cycle}` : ''} (T_total ${e.fitness.toFixed(2)} s there), scored on this cycle's snapshot`,
        parents: [e.id],
      },
    ];
  });
  const rest = elites.length > 0 ? elites : seeds.map((s): Starter => ({ name: s.name, code: s.code, mutator: 'seed', editSummary: `seed ${s.name}` }));
  const seen = new Set<string>([codeHash(deployed.code)]);
  for (const s of rest) {
    const hash = codeHash(s.code);
    if (seen.has(hash)) continue;
    seen.add(hash);
    starters.push(s);
  }
  return starters;
}
