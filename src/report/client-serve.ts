/** Browser code of the serve section (see client-common.ts). */
export const CLIENT_SERVE = String.raw`
function drawServe(runs) {
  const live = runs.find((r) => !r.frozen) || runs[0];
  const s = section('Serve ' + runs.map((r) => (r.frozen ? 'frozen' : 'live') + ' run ' + r.run).join(' beside '),
    'Per-minute figures are from serving the run again (unpaced) from its saved settings with the recorded deployments swapped in at their times; deployments and rollbacks are the lineage\'s. ' + runs.filter((r) => r.replayNote).map((r) => 'Run ' + r.run + ': ' + r.replayNote + '.').join(' '));
  for (const r of runs) {
    facts(s, [
      ['run', r.run + (r.frozen ? ' (frozen)' : '') + ' of ' + r.db],
      ['status', r.status],
      ['workload', r.workload],
      ['served', fmt(r.replay.servedMinutes, 1) + ' min'],
      ['cycles', r.cycles.length],
      ['deployments', Math.max(0, r.deployments.length - 1)],
      ['rollbacks', r.deployments.filter((d) => d.rolledBackMinute !== null).length],
    ]);
  }
  const marks = (r) => {
    const data = [];
    for (const d of r.deployments.slice(1)) data.push({ xAxis: d.minute, name: 'deploy #' + d.candidate, lineStyle: { color: '#109618' }, label: { formatter: 'deploy #' + d.candidate, color: '#109618', position: 'insideEndTop' } });
    for (const d of r.deployments) if (d.rolledBackMinute !== null) data.push({ xAxis: d.rolledBackMinute, name: 'rollback #' + d.candidate, lineStyle: { color: '#c62828', type: 'dashed' }, label: { formatter: 'rollback #' + d.candidate, color: '#c62828', position: 'insideEndBottom' } });
    return { silent: true, symbol: 'none', data: data };
  };
  const color = (r, i) => (r.frozen ? '#888' : PALETTE[i]);
  const name = (r) => (r.frozen ? 'frozen' : 'live') + ' run ' + r.run;

  const end = Math.max.apply(null, runs.map((r) => r.replay.servedMinutes));
  const xAxis = () => minuteAxis({ min: 0, max: end });
  const events = [];
  runs.forEach((r, i) => {
    const y = name(r);
    for (const c of r.cycles) if (c.endMinute !== null) events.push({ value: [c.endMinute, y], symbol: 'circle', symbolSize: 8, itemStyle: { color: c.winner ? '#109618' : c.status === 'finished' ? '#9aa3b5' : '#ff9900' }, what: 'cycle ' + c.id + ' ' + c.status + ' (' + fmt(c.startMinute, 1) + '–' + fmt(c.endMinute, 1) + ' min), best ' + fmt(c.bestFitness) + ' s vs deployed ' + fmt(c.deployedFitness) + ' s' });
    for (const d of r.deployments) events.push({ value: [d.minute, y], symbol: 'triangle', symbolSize: 14, itemStyle: { color: '#109618' }, what: (d.reason || 'deployed') + ': candidate #' + d.candidate + (d.fitness !== null ? ', T_total ' + fmt(d.fitness) + ' s on its snapshot' : '') });
    for (const d of r.deployments) if (d.rolledBackMinute !== null) events.push({ value: [d.rolledBackMinute, y], symbol: 'diamond', symbolSize: 14, itemStyle: { color: '#c62828' }, what: 'rolled back #' + d.candidate + ': ' + (d.rollbackReason || '') });
  });
  chart(s, 'serve-timeline', 'deployments (▲), rollbacks (◆) and cycle ends (●)', {
    tooltip: { trigger: 'item', formatter: (p) => fmt(p.data.value[0], 1) + ' min: ' + p.data.what },
    grid: { left: 110, right: 24, top: 20, bottom: 40 },
    xAxis: xAxis(), yAxis: { type: 'category', data: runs.map(name) },
    series: [{ type: 'scatter', data: events }],
  }, 'short');

  const grid = el('div', { class: 'grid' });
  s.append(grid);
  chart(grid, 'serve-throughput', 'throughput per minute (req/s)', {
    legend: { top: 0 }, xAxis: xAxis(), yAxis: valueAxis('req/s'),
    series: runs.map((r, i) => ({ name: name(r), type: 'line', showSymbol: false, data: r.replay.minutes.map((m) => [m.minute, m.throughput]), itemStyle: { color: color(r, i) }, markLine: r === live ? marks(r) : undefined })),
  });
  chart(grid, 'serve-ttft', 'P95 TTFT per minute (s)', {
    legend: { top: 0 }, xAxis: xAxis(), yAxis: valueAxis('s'),
    series: runs.map((r, i) => ({ name: name(r), type: 'line', showSymbol: false, data: r.replay.minutes.filter((m) => m.ttftP95 !== null).map((m) => [m.minute, m.ttftP95]), itemStyle: { color: color(r, i) }, markLine: r === live ? marks(r) : undefined })),
  });
  chart(grid, 'serve-split', 'prefill nodes over time', {
    legend: { top: 0 }, xAxis: xAxis(), yAxis: valueAxis('prefill nodes', { minInterval: 1, min: 0, max: (v) => v.max + 1, scale: false }),
    tooltip: { trigger: 'axis', formatter: (ps) => ps.map((p) => p.seriesName + ': ' + p.data[2]).join('<br>') },
    series: runs.map((r, i) => {
      const pts = r.replay.splits.map((p) => [p.minute, p.prefill, p.split]);
      if (pts.length) pts.push([r.replay.servedMinutes, pts[pts.length - 1][1], pts[pts.length - 1][2]]);
      return { name: name(r), type: 'line', step: 'end', showSymbol: false, data: pts, itemStyle: { color: color(r, i) }, markLine: r === live ? marks(r) : undefined };
    }),
  });
}
`;
