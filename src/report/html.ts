import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { InfrastructureError } from '../common/errors.js';
import { CLIENT_COMMON } from './client-common.js';
import { CLIENT_EVOLVE } from './client-evolve.js';
import { CLIENT_SERVE } from './client-serve.js';
import { CLIENT_SUITE } from './client-suite.js';
import { STYLE } from './style.js';

/**
 * The report page: one HTML file with the chart library, the styles, the
 * data and the drawing code inlined, so it opens from disk with nothing
 * fetched. The chart library is echarts' prebuilt browser bundle, read from
 * node_modules when the report is written.
 */
export function renderPage(title: string, payload: unknown): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<header><h1>${escapeHtml(title)}</h1><p id="subtitle"></p></header>
<main id="report"></main>
<script id="report-data" type="application/json">${JSON.stringify(payload).replace(/</g, '\\u003c')}</script>
<script>${scriptSafe(echartsSource())}</script>
<script>
"use strict";
${CLIENT_COMMON}
${CLIENT_EVOLVE}
${CLIENT_SERVE}
${CLIENT_SUITE}
main();
</script>
</body>
</html>
`;
}

let cached: string | undefined;

function echartsSource(): string {
  if (cached === undefined) {
    let path: string;
    try {
      path = createRequire(import.meta.url).resolve('echarts/dist/echarts.min.js');
    } catch {
      throw new InfrastructureError('the chart library (npm package echarts) is not installed: run `npm ci`');
    }
    cached = readFileSync(path, 'utf8');
  }
  return cached;
}

/**
 * Inside a <script> element `</script` ends it early. The data is JSON with
 * every `<` written `\u003c` (same string); in the library's source the
 * sequence can only be inside a string or a regex, where `<\/` means the same.
 */
function scriptSafe(text: string): string {
  return text.replace(/<\/(script)/gi, '<\\/$1');
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
