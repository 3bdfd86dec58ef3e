import { existsSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot } from '../common/package-root.js';

/**
 * The compiled file of a worker that sits beside the module `moduleUrl`
 * (pass `import.meta.url`). Under vitest the sources are TypeScript, so the
 * worker always runs from dist/ (npm test builds first).
 */
export function compiledWorker(moduleUrl: string, file: string): string {
  const here = dirname(fileURLToPath(moduleUrl));
  const compiled = join(here, file);
  if (existsSync(compiled)) return compiled;
  return join(packageRoot(), 'dist', relative(packageRoot(), here), file);
}
