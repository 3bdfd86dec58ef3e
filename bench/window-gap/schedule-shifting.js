/*
 * A clairvoyant time schedule for the shifting scenario, seed 103
 * (docs/gap-study.md): 2P7D until 3,100 s, then 8P1D. Written after looking
 * at greedy's run (the putnam -> mix shift reaches the replay at about
 * 3,000 s); it pays every transition. Not a policy to deploy: the yardstick
 * of what choosing splits alone can reach. Edit SCHED to try others.
 */
var SCHED = [[0, 2], [3100, 8]];

function want(ctx) {
  var p = SCHED[0][1];
  for (var i = 0; i < SCHED.length; i++) if (ctx.now >= SCHED[i][0]) p = SCHED[i][1];
  return p;
}

function shouldReschedule(ctx) {
  var roles = ctx.nodes.map(function (n) { return n.targetRole || n.role; });
  return countRoles(roles, ctx.nodes).P !== want(ctx);
}

function schedule(ctx) {
  return { roles: splitToRoles(want(ctx), ctx.nodes) };
}
