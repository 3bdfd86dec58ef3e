/*
 * A clairvoyant time schedule for the hetero scenario, seed 103
 * (docs/gap-study.md): 2P7D until 3,700 s, 7P2D until 12,600 s, then 8P1D,
 * the nodes placed by kind (splitByKind). Written after looking at the runs;
 * it pays every transition. The yardstick of what choosing splits alone can
 * reach, not a policy to deploy. Edit SCHED to try others.
 */
var SCHED = [[0, 2], [3700, 7], [12600, 8]];

function want(ctx) {
  var p = SCHED[0][1];
  for (var i = 0; i < SCHED.length; i++) if (ctx.now >= SCHED[i][0]) p = SCHED[i][1];
  return p;
}

function target(ctx) {
  var w = meanWorkload(ctx);
  return w === null ? splitToRoles(want(ctx), ctx.nodes) : splitByKind(want(ctx), ctx.nodes, ctx, w);
}

function shouldReschedule(ctx) {
  var roles = ctx.nodes.map(function (n) { return n.targetRole || n.role; });
  var t = target(ctx);
  for (var i = 0; i < roles.length; i++) if (roles[i] !== t[i]) return true;
  return false;
}

function schedule(ctx) {
  return { roles: target(ctx) };
}
