import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Debian's chromium package; `.ci/run` installs it when it is missing. */
export const CHROMIUM = '/usr/bin/chromium';

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/**
 * Headless Chromium with a fresh profile. No usable browser is a failure
 * with the reason and the fix, never a skip: the report is only known to
 * work once a real browser has drawn it.
 */
export async function launchBrowser(): Promise<BrowserContext> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`the report's browser test needs headless Chromium at ${CHROMIUM}, which is missing: install Debian's chromium package (apt-get update && apt-get install -y chromium; .ci/run does this)`);
  }
  try {
    return await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'report-chromium-')), {
      executablePath: CHROMIUM,
      headless: true,
      args: ARGS,
      viewport: { width: 1400, height: 900 },
    });
  } catch (error) {
    throw new Error(`${CHROMIUM} is there but did not start, so the report cannot be checked in a browser: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
  }
}

export interface OpenedReport {
  page: Page;
  /** Console errors and uncaught exceptions of the page. */
  errors: string[];
  /** Every request that was not for the file itself: the report must fetch nothing. */
  requests: string[];
}

/** Open a report file and wait until its script has drawn every chart. */
export async function openReport(context: BrowserContext, file: string): Promise<OpenedReport> {
  const page = await context.newPage();
  const errors: string[] = [];
  const requests: string[] = [];
  const url = 'file://' + file;
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('request', (r) => {
    if (r.url() !== url) requests.push(r.url());
  });
  await page.goto(url);
  await page.waitForFunction(() => (window as unknown as { __report?: { ready: boolean } }).__report?.ready === true);
  return { page, errors, requests };
}

export interface DrawnChart {
  /** SVG elements drawn in the chart's container. */
  drawn: number;
  /** The SVG's width over its container's (1: drawn at the container's size). */
  widthRatio: number;
}

/** Each chart container by name: how much was drawn in it, and at what size. */
export async function drawnCharts(page: Page): Promise<Record<string, DrawnChart>> {
  const list = await page.$$eval('.chart', (els) =>
    els.map((e) => {
      const svg = e.querySelector('svg');
      const ratio = svg ? svg.getBoundingClientRect().width / e.getBoundingClientRect().width : 0;
      return [e.getAttribute('data-chart') ?? '?', { drawn: e.querySelectorAll('svg path, svg text, svg rect').length, widthRatio: ratio }] as const;
    }),
  );
  return Object.fromEntries(list);
}
