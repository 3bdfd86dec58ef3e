import { join } from 'node:path';
import { packageRoot } from '../common/package-root.js';

export function workloadsDir(): string {
  return join(packageRoot(), 'evaluator', 'workloads');
}
