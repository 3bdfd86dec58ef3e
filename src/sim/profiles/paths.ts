import { join } from 'node:path';
import { packageRoot } from '../../common/package-root.js';

export { packageRoot };

/** Where the shipped profiles live, relative to the package root (also used in messages). */
export const PROFILES_DIR = 'evaluator/profiles';

export function profilesDir(): string {
  return join(packageRoot(), PROFILES_DIR);
}
