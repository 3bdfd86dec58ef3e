/**
 * Part of the policy stdlib's source text (stdlib-source.ts splices it into
 * its closure, so the same rules hold: plain ES2020, no imports, no host
 * objects; these functions call the others of the closure, such as
 * prefillRate, decodeRate, modelOf, meanWorkload and phaseCapacity, directly).
 * Node placement by kind (splitByKind) and the throughput prediction with
 * prefill headroom (predictWithHeadroom).
 */
export const PLANNING_SOURCE = String.raw`  // Roles as splitToRoles makes them (round(nP) up nodes on P, down nodes
  // left alone; within a kind a restarting node moves first, a switching one
  // last, else the least loaded), but on mixed hardware the kinds decide
  // which nodes run prefill, by comparative advantage: kinds ranked by one
  // node's prefill rate over its decode rate (ctx.model, for the workload,
  // default meanWorkload(ctx), at the decode batch of this split, as
  // phaseCapacity has them), prefill places filled from the highest ratio
  // down. Splitwise's placement (Patel et al., ISCA 2024: prompt phase on
  // H100, token phase on A100): a GB300 does ~3.3x an H200's prefill but
  // ~1.8x its decode, so it goes to prefill though faster at both. The kind
  // order comes first: a switching node of a kind with fewer places is moved
  // back. Equal ratios share places as one kind. A kind with no model, or
  // rates both 0, comes last (the predictor counts nothing for it in either
  // role). One kind up, no workload (null), or nP at 0 or every up node: the
  // roles are splitToRoles' exactly. Ratios that nearly tie can swap places
  // as the workload moves, and with them nodes at the same count.
  function splitByKind(nP, nodes, ctx, workload) {
    if (ctx === null || typeof ctx !== 'object' || ctx.model === null || typeof ctx.model !== 'object') {
      throw new TypeError('splitByKind: the third argument must be ctx (its model ranks the node kinds)');
    }
    const roles = [];
    const up = [];
    let mixed = false;
    for (let i = 0; i < nodes.length; i++) {
      roles.push(nodes[i].targetRole || nodes[i].role);
      if (nodes[i].state !== 'down') {
        up.push(i);
        if (nodes[i].kind !== nodes[up[0]].kind) mixed = true;
      }
    }
    const want = Math.max(0, Math.min(up.length, Math.round(nP)));
    function load(i) {
      if (nodes[i].state === 'restarting') return -1;
      if (nodes[i].state === 'switching') return 1e12;
      return nodes[i].queueLength + nodes[i].running;
    }
    function byLoad(a, b) { return load(a) - load(b) || a - b; }
    const tiers = mixed && want > 0 && want < up.length ? kindTiers(nodes, up, want, ctx, workload) : null;
    // One tier: splitToRoles' own steps, written out again rather than shared
    // so that the call counts the same ops (scheduling cost) as splitToRoles.
    if (tiers === null) {
      const ps = up.filter(function (i) { return roles[i] === 'P'; }).sort(byLoad);
      const ds = up.filter(function (i) { return roles[i] === 'D'; }).sort(byLoad);
      for (let k = 0; k < ps.length - want; k++) roles[ps[k]] = 'D';
      for (let k = 0; k < want - ps.length; k++) roles[ds[k]] = 'P';
      return roles;
    }
    let left = want;
    for (let t = 0; t < tiers.length; t++) {
      const quota = Math.min(left, tiers[t].length);
      left -= quota;
      const ps = tiers[t].filter(function (i) { return roles[i] === 'P'; }).sort(byLoad);
      const ds = tiers[t].filter(function (i) { return roles[i] === 'D'; }).sort(byLoad);
      for (let k = 0; k < ps.length - quota; k++) roles[ps[k]] = 'D';
      for (let k = 0; k < quota - ps.length; k++) roles[ds[k]] = 'P';
    }
    return roles;
  }

  // prefill rate / decode rate of one node of model m; -Infinity (last) for
  // no model, or rates that are both 0 or not numbers.
  function prefillAdvantage(m, w, perNodeQueue) {
    if (m === null) return -Infinity;
    const r = prefillRate(m, w) / decodeRate(m, w, perNodeQueue);
    return r === r ? r : -Infinity;
  }

  // The up nodes in tiers, the kind with the most prefill advantage first
  // (kinds of equal ratio in one tier); null when there is no workload to
  // rank by or every kind ties, which leaves one tier of every up node.
  function kindTiers(nodes, up, want, ctx, workload) {
    const w = workload === undefined ? meanWorkload(ctx) : workload;
    if (w === null || w === undefined) return null;
    const inSystem = w.decodeQueue + (isNum(w.prefillQueue) ? w.prefillQueue : 0);
    const perNodeQueue = inSystem / (up.length - want);
    const kinds = [];
    const members = [];
    const ratio = [];
    for (let k = 0; k < up.length; k++) {
      const kind = nodes[up[k]].kind;
      let g = kinds.indexOf(kind);
      if (g < 0) {
        g = kinds.length;
        kinds.push(kind);
        members.push([]);
        ratio.push(prefillAdvantage(modelOf(ctx, kind), w, perNodeQueue));
      }
      members[g].push(up[k]);
    }
    const order = kinds.map(function (_, g) { return g; }).sort(function (a, b) {
      return ratio[a] > ratio[b] ? -1 : ratio[a] < ratio[b] ? 1 : a - b;
    });
    const tiers = [];
    for (let j = 0; j < order.length; j++) {
      const g = order[j];
      if (j > 0 && ratio[g] === ratio[order[j - 1]]) tiers[tiers.length - 1] = tiers[tiers.length - 1].concat(members[g]);
      else tiers.push(members[g]);
    }
    return tiers.length > 1 ? tiers : null;
  }

  // Theta of the split with spareNodes prefill nodes' worth of capacity held
  // back: min(prefill * (nP - h) / nP, decode), nP the up prefill nodes of
  // roles, h = spareNodes >= 0 (0, or anything not a non-negative number, is
  // predictThroughput's value; h >= nP values the prefill phase at 0). Why
  // spare prefill and not decode: a decode node's rate grows with its batch
  // (more requests waiting, bigger batches, up to maxDecodeBatch), a prefill
  // node's does not (one request per iteration, time linear in its tokens),
  // so a prefill phase planned at full load queues, and in a closed loop the
  // time agents wait there is time they do not issue work. Why a number of
  // nodes and not a share: at the same utilisation the wait of c servers
  // falls steeply with c (Erlang C), so one or two prefill nodes need the
  // spare capacity and seven or eight barely do (docs/gap-study.md).
  function predictWithHeadroom(ctx, roles, workload, spareNodes) {
    const c = phaseCapacity(ctx, roles, workload);
    const h = isNum(spareNodes) && spareNodes > 0 ? spareNodes : 0;
    let n = 0;
    for (let i = 0; i < roles.length; i++) if (ctx.nodes[i].state !== 'down' && roles[i] === 'P') n++;
    const prefill = n > 0 ? (c.prefill * Math.max(0, n - h)) / n : 0;
    return Math.min(prefill, c.decode);
  }
`;
