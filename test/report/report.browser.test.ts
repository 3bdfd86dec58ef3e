import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { openLineageStore } from '../../src/store/index.js';
import { drawnCharts, launchBrowser, openReport } from './browser.js';
import { cli, evolveRun, serveRun, suiteFile } from './fixtures.js';

/**
 * The report opened in headless Chromium: it draws every chart with no
 * console error and without fetching anything, a click on a lineage node
 * shows that candidate's code, and a screenshot is written.
 */
const dir = mkdtempSync(join(tmpdir(), 'report-browser-'));

// Launched by the first test that needs it, inside the test: a machine with
// no usable browser fails each test with the reason (a failing beforeAll
// would only mark them skipped).
let launched: Promise<BrowserContext> | undefined;
const browser = () => (launched ??= launchBrowser());

afterAll(async () => {
  await launched?.then((c) => c.close(), () => {});
});

async function checkDrawn(file: string, expected: string[]) {
  const opened = await openReport(await browser(), file);
  const charts = await drawnCharts(opened.page);
  expect(Object.keys(charts).sort()).toEqual([...expected].sort());
  for (const [name, c] of Object.entries(charts)) {
    expect(c.drawn, `chart ${name} drew nothing`).toBeGreaterThanOrEqual(5);
    expect(c.widthRatio, `chart ${name} is not drawn at its container's width`).toBeCloseTo(1, 2);
  }
  expect(opened.errors).toEqual([]);
  expect(opened.requests).toEqual([]);
  return opened;
}

async function screenshot(page: Page, name: string): Promise<string> {
  const path = join(dir, name);
  await page.screenshot({ path, fullPage: true });
  expect(statSync(path).size).toBeGreaterThan(20_000);
  return path;
}

/** Click a node of the lineage chart where echarts drew it (converted from its layout coordinates to the page's). */
async function clickLineageNode(page: Page, id: number): Promise<void> {
  await page.locator('[data-chart="lineage"]').scrollIntoViewIfNeeded();
  const at = await page.evaluate((nodeId) => {
    type Chart = { getOption(): { series: { data: { name: string; x: number; y: number }[] }[] }; convertToPixel(finder: object, value: number[]): number[]; getDom(): HTMLElement };
    const chart = (window as unknown as { __report: { charts: Record<string, Chart> } }).__report.charts.lineage!;
    const node = chart.getOption().series[0]!.data.find((d) => d.name === String(nodeId))!;
    const [x, y] = chart.convertToPixel({ seriesIndex: 0 }, [node.x, node.y]);
    const box = chart.getDom().getBoundingClientRect();
    return { x: box.left + x!, y: box.top + y! };
  }, id);
  await page.mouse.click(at.x, at.y);
}

describe('autopoiesis report in a browser', () => {
  it('evolve run: every chart drawn, a click on a lineage node shows its code and diff', async () => {
    await browser();
    const db = join(dir, 'evolve.db');
    await evolveRun(db);
    const file = join(dir, 'evolve.html');
    const r = await cli(['report', '--db', db, '-o', file]);
    expect(r.code, r.stderr).toBe(0);
    const store = openLineageStore(db, { readonly: true });
    const best = store.best(1, 1)[0]!;
    const ancestry = store.ancestry(best.id);
    const oldest = ancestry.at(-1)!.candidate.id;
    const code = (id: number) => store.getCandidate(id)!.code;
    const bestCode = code(best.id);
    const oldestCode = code(oldest);
    store.close();
    expect(ancestry.length, 'the fixture run should have evolved its best').toBeGreaterThan(1);

    const { page } = await checkDrawn(file, ['fitness', 'archive-0', 'archive-1', 'lineage', 'replay-split', 'replay-throughput', 'replay-ttft', 'replay-cost', 'failures']);
    // The best is shown first; a click on its oldest ancestor (a seed) shows that one.
    expect(await page.textContent('#candidate-code')).toBe(bestCode);
    await clickLineageNode(page, oldest);
    expect(await page.textContent('#candidate-head')).toMatch(new RegExp(`^#${oldest} `));
    expect(await page.textContent('#candidate-code')).toBe(oldestCode);
    expect(await page.textContent('#candidate-diff')).toBe('(a seed: no parent)');
    await clickLineageNode(page, best.id);
    expect(await page.textContent('#candidate-code')).toBe(bestCode);
    expect(await page.textContent('#candidate-diff')).toContain(`+++ #${best.id}`);
    // Every edge of the tree carries its child's edit.
    const edges = await page.evaluate(() => {
      type Chart = { getOption(): { series: { links: { target: string; edit: string }[] }[] } };
      return (window as unknown as { __report: { charts: Record<string, Chart> } }).__report.charts.lineage!.getOption().series[0]!.links.map((l) => [l.target, l.edit]);
    });
    expect(edges.length).toBeGreaterThanOrEqual(ancestry.length - 1);
    for (const [target, edit] of edges) expect(edit, `edge into #${target}`).toBe(ancestry.find((a) => String(a.candidate.id) === target)!.candidate.editSummary);
    const shot = await screenshot(page, 'evolve.png');
    expect(existsSync(shot)).toBe(true);
    await page.close();
  }, 180_000);

  it('serve run beside its frozen baseline, and a suite file: every chart drawn', async () => {
    await browser();
    const live = join(dir, 'live.db');
    const frozen = join(dir, 'frozen.db');
    await serveRun(live, join(dir, 'staging-live'), false);
    await serveRun(frozen, join(dir, 'staging-frozen'), true);
    const suite = await suiteFile(dir);

    const serveHtml = join(dir, 'serve.html');
    const r = await cli(['report', '--db', live, '--compare-db', frozen, '-o', serveHtml]);
    expect(r.code, r.stderr).toBe(0);
    const serve = await checkDrawn(serveHtml, ['serve-timeline', 'serve-throughput', 'serve-ttft', 'serve-split']);
    // Two hand-staged deployments, the second rolled back: three triangles (with the start) and one diamond on the live run's row.
    const marks = await serve.page.evaluate(() => {
      type Chart = { getOption(): { series: { data: { symbol: string; value: [number, string] }[] }[] } };
      const data = (window as unknown as { __report: { charts: Record<string, Chart> } }).__report.charts['serve-timeline']!.getOption().series[0]!.data;
      return data.filter((d) => d.value[1] === 'live run 1').map((d) => d.symbol).sort();
    });
    expect(marks).toEqual(['diamond', 'triangle', 'triangle', 'triangle']);
    await screenshot(serve.page, 'serve.png');
    await serve.page.close();

    const suiteHtml = join(dir, 'suite.html');
    const s = await cli(['report', '--suite', suite, '-o', suiteHtml]);
    expect(s.code, s.stderr).toBe(0);
    const opened = await checkDrawn(suiteHtml, ['suite-vs-oracles', 'suite-0', 'suite-1']);
    // Per scenario: a header, the two oracle rows and one row per policy.
    expect(await opened.page.$$eval('table', (ts) => ts.map((t) => t.querySelectorAll('tr').length))).toEqual([6, 6]);
    await screenshot(opened.page, 'suite.png');
    await opened.page.close();
  }, 180_000);
});
