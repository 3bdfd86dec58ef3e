/** Browser code of the suite section (see client-common.ts). */
export const CLIENT_SUITE = String.raw`
function drawSuite(S) {
  const s = section('Scenario suite', 'Each policy\'s throughput on each scenario against the two hindsight oracles: the best static split (solid line) and the window oracle (dashed). Sched cost ' + S.schedCost + ', code version ' + S.codeVersion + '.');
  const policies = Array.from(new Set(S.scenarios.flatMap((sc) => sc.policies.map((p) => p.policy))));
  chart(s, 'suite-vs-oracles', 'throughput vs the best static split (%), and the gap to the window oracle (%)', {
    legend: { top: 0 }, tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' } },
    grid: { left: 56, right: 24, top: 36, bottom: 70 },
    xAxis: { type: 'category', data: S.scenarios.map((sc) => sc.name), axisLabel: { rotate: 20 } },
    yAxis: valueAxis('%', { scale: false }),
    series: policies.flatMap((name, i) => [
      { name: name + ' vs static', type: 'bar', itemStyle: { color: PALETTE[i % PALETTE.length] }, data: S.scenarios.map((sc) => { const p = sc.policies.find((x) => x.policy === name); return p ? p.vsStaticPct : null; }) },
      { name: name + ' below the window oracle', type: 'bar', itemStyle: { color: PALETTE[i % PALETTE.length], opacity: 0.45 }, data: S.scenarios.map((sc) => { const p = sc.policies.find((x) => x.policy === name); return p ? -p.oracleGapPct : null; }) },
    ]),
  }, 'tall');
  S.scenarios.forEach((sc, k) => {
    const box = el('div', { class: 'scenario' });
    s.append(box);
    const b = sc.oracle.staticBest;
    chart(box, 'suite-' + k, sc.name + ' (seed ' + sc.seed + ')', {
      tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' } },
      grid: { left: 120, right: 60, top: 24, bottom: 36 },
      xAxis: valueAxis('req/s', { scale: false }),
      yAxis: { type: 'category', data: sc.policies.map((p) => p.policy) },
      series: [{
        type: 'bar', name: 'throughput', data: sc.policies.map((p, i) => ({ value: p.throughput, itemStyle: { color: PALETTE[policies.indexOf(p.policy) % PALETTE.length] } })),
        label: { show: true, position: 'right', formatter: (p) => fmt(p.value, 3) },
        markLine: { symbol: 'none', data: [
          { xAxis: b.throughput, name: 'best static ' + b.split, lineStyle: { color: '#333' }, label: { formatter: 'static ' + b.split, position: 'end' } },
          { xAxis: sc.oracle.window.throughput, name: 'window oracle', lineStyle: { color: '#dc3912', type: 'dashed' }, label: { formatter: 'window', position: 'insideEndTop' } },
        ] },
      }],
    }, 'short');
    const rows = [['policy', 'req/s', 'vs static %', 'gap to oracle %', 'TTFT P95 s', 'E2E mean s', 'T_total s', 'transitions', 'final split']];
    const table = el('table', {});
    table.append(el('tr', {}, rows[0].map((h) => el('th', { text: h }))));
    table.append(el('tr', { class: 'oracle' }, ['best static ' + b.split, fmt(b.throughput, 3), '0.0', '', fmt(b.ttftP95), fmt(b.e2eMean), fmt(b.tTotal, 1), '0', b.split].map((v) => el('td', { text: v }))));
    table.append(el('tr', { class: 'oracle' }, ['window oracle', fmt(sc.oracle.window.throughput, 3), '', '0.0', '', '', '', '', ''].map((v) => el('td', { text: v }))));
    for (const p of sc.policies) {
      const tr = el('tr', {});
      const cells = [p.policy, fmt(p.throughput, 3), (p.vsStaticPct > 0 ? '+' : '') + fmt(p.vsStaticPct, 1), fmt(p.oracleGapPct, 1), fmt(p.ttftP95), fmt(p.e2eMean), fmt(p.tTotal, 1), String(p.transitions), p.finalSplit + (p.failures ? ' (' + p.failures + ' failures)' : '') + (p.drained ? '' : ' (cap)')];
      cells.forEach((v, i) => tr.append(el('td', { text: v, class: i === 2 ? (p.vsStaticPct > 0 ? 'pos' : p.vsStaticPct < 0 ? 'neg' : '') : '' })));
      table.append(tr);
    }
    box.append(el('div', { class: 'table' }, [table]));
  });
}
`;
