/** Browser code of the evolve section (see client-common.ts). */
export const CLIENT_EVOLVE = String.raw`
function drawEvolve(E) {
  const head = section('Evolve run ' + E.run.id, E.run.summary);
  facts(head, [
    ['status', E.run.status],
    ['iterations', E.iterations],
    ['islands', E.islands],
    ['candidates', E.candidates],
    ['fitness', E.run.fitnessUnit + ', lower is better'],
    ['best', E.best ? '#' + E.best.id + ', ' + fmt(E.best.fitness, 3) : '-'],
    ['best seed', E.bestSeed ? E.bestSeed.name + ' #' + E.bestSeed.id + ', ' + fmt(E.bestSeed.fitness, 3) : '-'],
    ['improvement', E.best && E.bestSeed ? fmt((1 - E.best.fitness / E.bestSeed.fitness) * 100) + ' %' : '-'],
  ]);
  drawFitness(E);
  drawArchives(E);
  drawLineage(E);
  drawReplays(E);
  drawFailures(E);
}

function drawFitness(E) {
  const s = section('Fitness over iterations', 'Fitness (' + E.run.fitnessUnit + ', lower is better) per island: the best so far (solid) and the median of what each iteration evaluated (dashed); the dotted line is the best seed. Seeds are iteration 0 of every island.');
  const series = [];
  E.curves.forEach((c, i) => {
    const color = PALETTE[i % PALETTE.length];
    series.push({ name: 'island ' + c.island + ' best', type: 'line', step: 'end', showSymbol: c.points.length < 60, data: c.points.map((p) => [p.iteration, p.best]), lineStyle: { color: color, width: 2 }, itemStyle: { color: color } });
    series.push({ name: 'island ' + c.island + ' median', type: 'line', showSymbol: false, data: c.points.map((p) => [p.iteration, p.median]), lineStyle: { color: color, type: 'dashed', width: 1 }, itemStyle: { color: color } });
  });
  if (E.bestSeed) {
    series.push({ name: 'best seed (' + E.bestSeed.name + ')', type: 'line', showSymbol: false, data: [[0, E.bestSeed.fitness], [Math.max(1, E.iterations), E.bestSeed.fitness]], lineStyle: { color: '#555', type: 'dotted', width: 2 }, itemStyle: { color: '#555' } });
  }
  chart(s, 'fitness', 'fitness by iteration', {
    legend: { type: 'scroll', top: 0 },
    xAxis: { type: 'value', name: 'iteration', nameLocation: 'middle', nameGap: 26, minInterval: 1 },
    yAxis: valueAxis(E.run.fitnessUnit),
    series: series,
  }, 'tall');
}

function binLabels(f) {
  const e = f.edges;
  const out = ['< ' + e[0]];
  for (let i = 1; i < e.length; i++) out.push(e[i - 1] + '–' + e[i]);
  out.push('≥ ' + e[e.length - 1]);
  return out;
}

function parseCell(cell, features) {
  const parts = cell.split('.');
  return features.map((f, i) => Number((parts[i] || '').slice(f.key.length)));
}

function drawArchives(E) {
  const s = section('MAP-Elites archives', 'Each island\'s archive as last committed: the best fitness of the elites in each bin of the first two features (' + (E.archives[0] ? E.archives[0].features.slice(0, 2).map((f) => f.name).join(' × ') : '') + '), over the other features\' bins (the tooltip lists them). ' + (E.archiveFromCheckpoint ? '' : 'No checkpoint: rebuilt from the stored cells.'));
  const grid = el('div', { class: 'grid' });
  s.append(grid);
  let lo = Infinity, hi = -Infinity;
  for (const a of E.archives) for (const e of a.elites) { lo = Math.min(lo, e.fitness); hi = Math.max(hi, e.fitness); }
  if (!isFinite(lo)) { lo = 0; hi = 1; }
  for (const a of E.archives) {
    const fx = a.features[0], fy = a.features[1];
    const xs = binLabels(fx), ys = fy ? binLabels(fy) : ['all'];
    const cells = new Map();
    for (const e of a.elites) {
      const b = parseCell(e.cell, a.features);
      const k = b[0] + ',' + (fy ? b[1] : 0);
      const held = cells.get(k) || { best: Infinity, elites: [] };
      held.best = Math.min(held.best, e.fitness);
      held.elites.push(e);
      cells.set(k, held);
    }
    const data = [];
    for (const [k, v] of cells) { const xy = k.split(',').map(Number); data.push({ value: [xy[0], xy[1], v.best], elites: v.elites }); }
    chart(grid, 'archive-' + a.island, 'island ' + a.island + ': ' + a.elites.length + ' elites', {
      tooltip: { trigger: 'item', formatter: (p) => p.data.elites.map((e) => '#' + e.id + ' ' + e.cell + ': ' + fmt(e.fitness, 3)).join('<br>') },
      grid: { left: 90, right: 24, top: 24, bottom: 64 },
      xAxis: { type: 'category', data: xs, name: fx.name, nameLocation: 'middle', nameGap: 40, splitArea: { show: true } },
      yAxis: { type: 'category', data: ys, name: fy ? fy.name : '', nameLocation: 'middle', nameGap: 72, splitArea: { show: true } },
      visualMap: { min: lo, max: hi === lo ? lo + 1 : hi, calculable: true, orient: 'vertical', right: 0, top: 'middle', itemHeight: 120, inRange: { color: ['#1a9850', '#fee08b', '#d73027'] }, text: ['worse', 'better'] },
      series: [{ type: 'heatmap', data: data, label: { show: true, formatter: (p) => fmt(p.data.value[2], 1) } }],
    });
  }
}

function drawLineage(E) {
  const s = section('Lineage of the best candidate', 'From the seeds (left) to the best (right); each edge is labelled with the edit that made the child. Click a node for its code and its diff against its parent.');
  if (E.lineage.length === 0) { s.append(el('p', { class: 'note', text: 'No evaluated candidate.' })); return; }
  const byDepth = new Map();
  for (const n of E.lineage) { const l = byDepth.get(n.depth) || []; l.push(n); byDepth.set(n.depth, l); }
  const maxDepth = Math.max.apply(null, E.lineage.map((n) => n.depth));
  const nodes = [];
  for (const [depth, list] of byDepth) {
    list.forEach((n, i) => {
      nodes.push({
        name: String(n.id), x: (maxDepth - depth) * 220, y: (i - (list.length - 1) / 2) * 90,
        value: n.fitness, symbolSize: n.depth === 0 ? 26 : 18,
        itemStyle: { color: n.mutator === 'seed' ? '#888' : n.depth === 0 ? '#dc3912' : '#3366cc' },
        label: { show: true, position: 'top', formatter: '#' + n.id + ' ' + fmt(n.fitness, n.fitness !== null && n.fitness < 10 ? 3 : 1) },
        info: n,
      });
    });
  }
  const byId = new Map(E.lineage.map((n) => [n.id, n]));
  const links = [];
  for (const n of E.lineage) for (const p of n.parents) {
    const edit = n.editSummary || n.mutator;
    links.push({ source: String(p), target: String(n.id), edit: edit, label: { formatter: edit.length > 38 ? edit.slice(0, 37) + '…' : edit } });
  }
  // A long lineage has no room for every label: edges then show theirs on hover (and in the tooltip).
  const roomy = links.length <= 12;
  for (const l of links) l.label.show = roomy;
  if (nodes.length > 40) for (const n of nodes) n.label.show = n.info.depth === 0 || n.info.mutator === 'seed';
  const c = chart(s, 'lineage', 'best #' + E.lineage[0].id + ': ' + E.lineage.length + ' candidates', {
    tooltip: { trigger: 'item', formatter: (p) => p.dataType === 'edge' ? '#' + p.data.source + ' → #' + p.data.target + ': ' + p.data.edit : '#' + p.data.info.id + ' (' + p.data.info.mutator + ', iteration ' + p.data.info.iteration + ', island ' + p.data.info.island + '): fitness ' + fmt(p.data.info.fitness, 3) },
    series: [{
      type: 'graph', layout: 'none', roam: true, data: nodes, links: links, edgeSymbol: ['none', 'arrow'], edgeSymbolSize: 8,
      lineStyle: { color: '#9aa3b5', width: 1.5, curveness: 0.08 }, edgeLabel: { fontSize: 11, color: '#2b3245' },
      emphasis: { focus: 'adjacency', edgeLabel: { show: true }, label: { show: true } },
    }],
  }, 'tall');
  const head = el('p', { id: 'candidate-head' });
  const code = el('pre', { id: 'candidate-code' });
  const diff = el('pre', { id: 'candidate-diff' });
  const buttons = el('div', {});
  for (const n of E.lineage) {
    const b = el('button', { class: 'node', 'data-id': String(n.id), text: '#' + n.id });
    b.addEventListener('click', () => show(n.id));
    buttons.append(b);
  }
  s.append(buttons, head, el('div', { class: 'panel' }, [el('div', {}, [el('h3', { text: 'code' }), code]), el('div', {}, [el('h3', { text: 'diff against its parent' }), diff])]));
  function show(id) {
    const n = byId.get(id);
    if (!n) return;
    for (const b of buttons.children) b.classList.toggle('on', b.getAttribute('data-id') === String(id));
    head.textContent = '#' + n.id + ' · ' + n.mutator + ' · iteration ' + n.iteration + ' · island ' + n.island + ' · ' + n.status + ' · fitness ' + fmt(n.fitness, 3) + ' · ' + (n.editSummary || '');
    code.textContent = n.code;
    diff.textContent = '';
    if (n.diff === null) { diff.textContent = '(a seed: no parent)'; return; }
    for (const line of n.diff.split('\n')) {
      const cls = line.startsWith('@@') ? 'hunk' : line.startsWith('+') && !line.startsWith('+++') ? 'add' : line.startsWith('-') && !line.startsWith('---') ? 'del' : '';
      diff.append(cls ? el('span', { class: cls, text: line }) : document.createTextNode(line), '\n');
    }
  }
  c.on('click', (p) => { if (p.dataType === 'node') show(p.data.info.id); });
  show(E.lineage[0].id);
}

function drawReplays(E) {
  const s = section('Best candidate and best seed, replayed', E.replayNote || ('Both replayed on the run\'s ' + (E.run.trainedSnapshots > 1 ? 'first of ' + E.run.trainedSnapshots + ' training snapshots' : 'snapshot') + ' (' + E.run.snapshot + ') as the evaluator scores them; the shaded part is the warm-up.'));
  if (E.replays.length === 0) return;
  const grid = el('div', { class: 'grid' });
  s.append(grid);
  const warm = E.replays[0].warmupMinutes;
  const warmArea = warm > 0 ? { silent: true, itemStyle: { color: 'rgba(120,120,140,0.08)' }, data: [[{ xAxis: 0 }, { xAxis: warm }]] } : undefined;
  const line = (r, i, pts, extra) => Object.assign({ name: r.label, type: 'line', showSymbol: false, data: pts, lineStyle: { width: 2 }, itemStyle: { color: PALETTE[i] }, markArea: i === 0 ? warmArea : undefined }, extra || {});
  chart(grid, 'replay-split', 'prefill nodes over time', {
    legend: { top: 0 }, xAxis: minuteAxis(), yAxis: valueAxis('prefill nodes', { minInterval: 1, min: 0, max: (v) => v.max + 1, scale: false }),
    tooltip: { trigger: 'axis', formatter: (ps) => ps.map((p) => p.seriesName + ': ' + p.data[2]).join('<br>') },
    series: E.replays.map((r, i) => line(r, i, r.splits.map((p) => [p.minute, p.prefill, p.split]).concat(r.minutes.length ? [[r.minutes[r.minutes.length - 1].minute + 1, r.splits[r.splits.length - 1].prefill, r.splits[r.splits.length - 1].split]] : []), { step: 'end' })),
  });
  chart(grid, 'replay-throughput', 'throughput per minute (req/s)', {
    legend: { top: 0 }, xAxis: minuteAxis(), yAxis: valueAxis('req/s'),
    series: E.replays.map((r, i) => line(r, i, r.minutes.map((m) => [m.minute, m.throughput]))),
  });
  chart(grid, 'replay-ttft', 'P95 TTFT per minute (s)', {
    legend: { top: 0 }, xAxis: minuteAxis(), yAxis: valueAxis('s'),
    series: E.replays.map((r, i) => line(r, i, r.minutes.filter((m) => m.ttftP95 !== null).map((m) => [m.minute, m.ttftP95]))),
  });
  // Two panels of one chart: the small parts on their own scale beside serve and T_total, so neither hides the other.
  const small = [['sched', 'schedSeconds'], ['stale', 'staleSeconds'], ['reconfig', 'reconfigSeconds']];
  const big = [['serve', 'serveSeconds'], ['T_total', null]];
  const val = (r, key) => (key === null ? r.tTotal : r.breakdown[key]);
  const label = (digits) => ({ show: true, position: 'top', fontSize: 10, formatter: (p) => fmt(p.value, digits) });
  chart(grid, 'replay-cost', 'T_total breakdown (s): sched / stale / reconfig, and serve', {
    legend: { top: 0 }, tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' } },
    grid: [{ left: 56, right: '42%', top: 40, bottom: 30 }, { left: '66%', right: 16, top: 40, bottom: 30 }],
    xAxis: [{ type: 'category', data: small.map((p) => p[0]), gridIndex: 0 }, { type: 'category', data: big.map((p) => p[0]), gridIndex: 1 }],
    yAxis: [valueAxis('s', { gridIndex: 0, scale: false }), valueAxis('s', { gridIndex: 1, scale: false })],
    series: E.replays.flatMap((r, i) => [
      { name: r.label, type: 'bar', xAxisIndex: 0, yAxisIndex: 0, itemStyle: { color: PALETTE[i] }, data: small.map((p) => val(r, p[1])), label: label(3) },
      { name: r.label, type: 'bar', xAxisIndex: 1, yAxisIndex: 1, itemStyle: { color: PALETTE[i] }, data: big.map((p) => val(r, p[1])), label: label(1) },
    ]),
  });
}

function drawFailures(E) {
  const total = E.failures.reduce((n, f) => n + f.count, 0);
  const s = section('Failures by kind', total === 0 ? 'No candidate failed or was rejected.' : total + ' candidates failed or were rejected (or carry a non-fatal failure), of ' + E.candidates + '.');
  const kinds = Array.from(new Set(E.failures.map((f) => f.kind)));
  const statuses = Array.from(new Set(E.failures.map((f) => f.status)));
  chart(s, 'failures', 'candidates by failure kind', {
    legend: { top: 0 }, tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' } },
    grid: { left: 140, right: 24, top: 36, bottom: 30 },
    xAxis: { type: 'value', minInterval: 1, name: 'candidates' },
    yAxis: { type: 'category', data: kinds.length ? kinds : ['none'] },
    series: (statuses.length ? statuses : ['failed']).map((st, i) => ({ name: st, type: 'bar', stack: 'all', itemStyle: { color: PALETTE[(i + 1) % PALETTE.length] }, data: (kinds.length ? kinds : ['none']).map((k) => { const f = E.failures.find((x) => x.kind === k && x.status === st); return f ? f.count : 0; }) })),
  }, 'short');
}
`;
