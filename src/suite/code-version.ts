import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot } from '../common/package-root.js';

/**
 * What an oracle's result depends on besides its inputs: the code that runs
 * (the simulator, the workload generator, the evaluator's replay, the shared
 * helpers such as the PRNG, and this folder's oracle definition) and the
 * calibrated profiles and workload presets. The folders are those of the
 * running modules, so a built CLI hashes the compiled files it executes and
 * vitest the sources it runs.
 */
export function simulatorCodeInputs(): string[] {
  const here = dirname(fileURLToPath(import.meta.url));
  const src = dirname(here);
  return [
    join(src, 'sim'),
    join(src, 'workload'),
    join(src, 'evaluate'),
    join(src, 'common'),
    ...['candidates', 'placement', 'oracle', 'split-run', 'window-oracle'].map((f) => join(here, `${f}${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`)),
    join(packageRoot(), 'evaluator', 'profiles'),
    join(packageRoot(), 'evaluator', 'workloads'),
  ];
}

const CODE_FILE = /\.(ts|js|json)$/;

/**
 * A hash over the contents of every code or JSON file under the given paths
 * (files or folders, walked recursively, in sorted order, each file named by
 * its path relative to the common package root so that moving the checkout
 * does not change it). Deterministic: file contents only, no times.
 */
export function codeVersion(paths: readonly string[] = simulatorCodeInputs()): string {
  const hash = createHash('sha256');
  const base = packageRoot();
  const files = paths.flatMap((p) => (existsSync(p) ? walk(p) : [])).sort();
  for (const file of files) {
    hash.update(relative(base, file)).update('\0');
    hash.update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

function walk(path: string): string[] {
  if (!statSync(path).isDirectory()) return CODE_FILE.test(path) && !path.endsWith('.d.ts') ? [path] : [];
  return readdirSync(path).flatMap((name) => walk(join(path, name)));
}

let cached: string | undefined;

/** codeVersion() of the running simulator, computed once per process. */
export function currentCodeVersion(): string {
  return (cached ??= codeVersion());
}
