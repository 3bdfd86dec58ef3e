import { PlanSchema, type Ctx, type CtxNode, type Plan } from './schema.js';

export type PlanCheck = { ok: true; plan: Plan } | { ok: false; message: string };

/** A node takes part in a plan unless it is down (restarting nodes come back with the role they are given). */
export function isUp(node: Pick<Ctx['nodes'][number], 'state'>): boolean {
  return node.state !== 'down';
}

/**
 * Check a plan against the schema and against the cluster it is for: one role
 * per node of ctx.nodes, and at least limits.minPrefill prefill and
 * limits.minDecode decode nodes among the up nodes. When fewer nodes are up
 * than the two minimums add up to, no split can satisfy them, so only the
 * shape is checked. The message names the first problem, for the policy's
 * author (person or LLM). The same rules apply twice: in the sandbox when
 * the policy returns the plan, and in the simulator when the plan takes
 * effect (nodes may have failed meanwhile).
 */
export function validatePlan(plan: unknown, ctx: { nodes: readonly Pick<CtxNode, 'state'>[]; limits: Ctx['limits'] }): PlanCheck {
  const parsed = PlanSchema.safeParse(plan);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = issue.path.map((k) => (typeof k === 'number' ? `[${k}]` : `.${String(k)}`)).join('');
    return { ok: false, message: `plan${path}: ${issue.message}` };
  }
  const { roles } = parsed.data;
  if (roles.length !== ctx.nodes.length) {
    return {
      ok: false,
      message: `plan.roles has ${roles.length} entries but ctx.nodes has ${ctx.nodes.length}; give one role per node, by position`,
    };
  }
  let up = 0;
  let prefill = 0;
  let decode = 0;
  for (let i = 0; i < roles.length; i++) {
    if (!isUp(ctx.nodes[i]!)) continue;
    up++;
    if (roles[i] === 'P') prefill++;
    else decode++;
  }
  const { minPrefill, minDecode } = ctx.limits;
  if (up >= minPrefill + minDecode) {
    if (prefill < minPrefill) {
      return { ok: false, message: `plan leaves ${prefill} prefill node(s) among the ${up} up nodes; at least ${minPrefill} needed` };
    }
    if (decode < minDecode) {
      return { ok: false, message: `plan leaves ${decode} decode node(s) among the ${up} up nodes; at least ${minDecode} needed` };
    }
  }
  return { ok: true, plan: parsed.data };
}
