import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { InputError } from '../common/errors.js';

/** Read a policy file; a missing or unreadable one is an input error naming it. */
export function readPolicyFile(path: string): { name: string; source: string } {
  if (!existsSync(path)) throw new InputError('policy file not found', { file: path });
  if (!statSync(path).isFile()) throw new InputError('policy path is not a file', { file: path });
  return { name: basename(path).replace(/\.js$/, ''), source: readFileSync(path, 'utf8') };
}
