/**
 * Browser code of the report, shared by its sections: plain JS in a string,
 * inlined in the page. It reads the data from the page's JSON element and
 * draws with echarts (SVG renderer, so the page prints and scales cleanly).
 */
export const CLIENT_COMMON = String.raw`
const DATA = JSON.parse(document.getElementById('report-data').textContent);
const CHARTS = {};
const PALETTE = ['#3366cc', '#dc3912', '#ff9900', '#109618', '#990099', '#0099c6', '#dd4477', '#66aa00', '#b82e2e', '#316395'];

function el(tag, attrs, children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'text') node.textContent = v;
    else node.setAttribute(k, v);
  }
  for (const c of children || []) node.append(c);
  return node;
}

function section(title, note) {
  const s = el('section', {}, [el('h2', { text: title })]);
  if (note) s.append(el('p', { class: 'note', text: note }));
  document.getElementById('report').append(s);
  return s;
}

function facts(parent, pairs) {
  const ul = el('ul', { class: 'facts' });
  for (const [k, v] of pairs) {
    const li = el('li', {}, [k + ': ']);
    li.append(el('b', { text: String(v) }));
    ul.append(li);
  }
  parent.append(ul);
}

/** A chart container; the browser test finds every chart by its class. */
function chart(parent, name, title, option, size) {
  const box = el('div', {}, [el('h3', { text: title })]);
  const div = el('div', { class: 'chart' + (size ? ' ' + size : ''), 'data-chart': name });
  box.append(div);
  parent.append(box);
  const c = echarts.init(div, null, { renderer: 'svg' });
  c.setOption(Object.assign({ animation: false, color: PALETTE, tooltip: { trigger: 'axis' }, grid: { left: 56, right: 24, top: 36, bottom: 40 } }, option));
  CHARTS[name] = c;
  // A chart is sized when it is created; later charts of the same grid row change its width.
  new ResizeObserver(() => c.resize()).observe(div);
  return c;
}

function fmt(x, digits) {
  return x === null || x === undefined || !isFinite(x) ? '-' : Number(x).toFixed(digits === undefined ? 2 : digits);
}

function valueAxis(name, extra) {
  return Object.assign({ type: 'value', name: name, nameGap: 22, scale: true, splitLine: { lineStyle: { color: '#eef0f4' } } }, extra || {});
}

/** Minutes on x for the per-minute charts. */
function minuteAxis(extra) {
  return Object.assign({ type: 'value', name: 'minute (a point is the minute starting there)', nameLocation: 'middle', nameGap: 26, scale: true }, extra || {});
}

window.addEventListener('resize', () => { for (const c of Object.values(CHARTS)) c.resize(); });

function main() {
  const subtitle = [];
  if (DATA.evolve) subtitle.push('evolve run ' + DATA.evolve.run.id + ' of ' + DATA.evolve.run.db);
  if (DATA.serve) subtitle.push(DATA.serve.map((s) => (s.frozen ? 'frozen' : 'live') + ' serve run ' + s.run + ' of ' + s.db).join(', '));
  if (DATA.suite) subtitle.push('suite ' + DATA.suite.file);
  document.getElementById('subtitle').textContent = subtitle.join(' · ');
  if (DATA.evolve) drawEvolve(DATA.evolve);
  if (DATA.serve) drawServe(DATA.serve);
  if (DATA.suite) drawSuite(DATA.suite);
  // Now that every container has its final size, draw each chart at it (the observers would, a frame later).
  for (const c of Object.values(CHARTS)) c.resize();
  window.__report = { charts: CHARTS, ready: true };
}
`;
