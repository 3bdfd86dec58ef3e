/** The report's stylesheet (inlined in the page). */
export const STYLE = `
:root { --fg: #1d2330; --muted: #5b6478; --line: #d9dee8; --bg: #f6f7fa; --card: #fff; --good: #1a7f37; --bad: #c62828; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
header { padding: 16px 24px 4px; }
h1 { margin: 0; font-size: 20px; }
h2 { margin: 0 0 8px; font-size: 16px; }
h3 { margin: 0 0 6px; font-size: 14px; color: var(--muted); font-weight: 600; }
#subtitle { margin: 4px 0 0; color: var(--muted); }
main { padding: 8px 24px 32px; display: flex; flex-direction: column; gap: 16px; }
section { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 14px 16px; }
section > p.note { margin: 0 0 8px; color: var(--muted); }
.grid { display: grid; gap: 12px; grid-template-columns: repeat(auto-fit, minmax(420px, 1fr)); }
.chart { width: 100%; height: 320px; }
.chart.tall { height: 460px; }
.chart.short { height: 220px; }
.facts { display: flex; flex-wrap: wrap; gap: 6px 20px; margin: 0 0 8px; padding: 0; list-style: none; color: var(--muted); }
.facts b { color: var(--fg); font-weight: 600; }
.panel { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; margin-top: 10px; }
.panel > div { min-width: 0; }
pre { margin: 0; padding: 8px 10px; max-height: 420px; overflow: auto; background: #0f1420; color: #e6e9ef; border-radius: 6px; font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
pre .add { color: #7ee787; } pre .del { color: #ff9b9b; } pre .hunk { color: #79c0ff; }
#candidate-head { margin: 8px 0 0; color: var(--muted); }
table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
th, td { text-align: right; padding: 3px 8px; border-bottom: 1px solid var(--line); white-space: nowrap; }
th:first-child, td:first-child { text-align: left; }
tr.oracle td { color: var(--muted); font-style: italic; }
.scenario { margin-top: 14px; }
.table { overflow-x: auto; }
.pos { color: var(--good); } .neg { color: var(--bad); }
button.node { margin: 2px; padding: 2px 6px; border: 1px solid var(--line); background: #fff; border-radius: 4px; cursor: pointer; font: inherit; font-size: 12px; }
button.node.on { background: #e8f0fe; border-color: #8ab4f8; }
@media (max-width: 900px) { .panel { grid-template-columns: 1fr; } }
`;
