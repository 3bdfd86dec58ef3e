import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * Vitest global setup: refuse to run on a stale dist/. Several tests start
 * compiled code (the evaluator pool's and mutators' worker threads, the
 * calibrate workers, bin/autopoiesis.js), and compiled code older than its
 * source would test what the source no longer says. `npm test` builds first;
 * this catches `npx vitest run` after an edit without a build.
 */
export default function setup(): void {
  const problem = staleDist(process.cwd());
  if (!problem) return;
  // An explicit way on for a work tree others edit while a file's tests run: said, never silent.
  if (process.env.AUTOPOIESIS_ALLOW_STALE_DIST === '1') {
    process.stderr.write(`warning: ${problem} (AUTOPOIESIS_ALLOW_STALE_DIST=1: running anyway)\n`);
    return;
  }
  throw new Error(problem);
}

/** Why dist/ does not match the sources (tsconfig's src/ and bench/), or null. */
export function staleDist(root: string): string | null {
  const entry = join(root, 'dist', 'src', 'cli', 'main.js');
  if (!existsSync(entry)) return 'dist/ is not built (no dist/src/cli/main.js). Tests run dist/ workers and bin/autopoiesis.js; build first: npx tsc -p tsconfig.json (npm test does)';
  // A source with no compiled file yet is not checked: nothing compiled can
  // use it before the file that imports or starts it changes, and that file is.
  const stale: string[] = [];
  for (const dir of ['src', 'bench']) {
    for (const source of tsFiles(join(root, dir))) {
      const rel = relative(root, source);
      const compiled = join(root, 'dist', rel.replace(/\.ts$/, '.js'));
      if (existsSync(compiled) && statSync(source).mtimeMs > statSync(compiled).mtimeMs) stale.push(`${rel} is newer than dist/${rel.replace(/\.ts$/, '.js')}`);
    }
  }
  if (stale.length === 0) return null;
  const more = stale.length > 3 ? ` (and ${stale.length - 3} more)` : '';
  return `dist/ is stale: ${stale.slice(0, 3).join('; ')}${more}. Tests run dist/ workers and bin/autopoiesis.js; build first: npx tsc -p tsconfig.json (npm test does)`;
}

function tsFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...tsFiles(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}
