import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { InputError } from '../../common/errors.js';

export interface SeedPolicy {
  name: string;
  code: string;
}

/** Every `*.js` in the folder, in name order (the initial population). */
export function loadSeeds(dir: string): SeedPolicy[] {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new InputError('seeds folder not found', { file: dir, field: '--seeds' });
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.js'))
    .sort();
  if (files.length === 0) throw new InputError('no .js policy in the seeds folder', { file: dir, field: '--seeds' });
  return files.map((f) => ({ name: basename(f, '.js'), code: readFileSync(join(dir, f), 'utf8') }));
}
