import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, dirname, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * One direction of dependency (design section 2):
 * cli -> dataplane/controlplane -> evolve -> evaluate -> sandbox, sim -> workload, policy.
 * `sim` knows nothing of evolution; `evolve` nothing of GB300 (it may reach the
 * simulator only through `evaluate`); `store` is used by controlplane, evolve and cli;
 * `queue` (the BullMQ transport, src/queue) knows no job kind and is used by evolve, suite and cli.
 */
const ALLOWED: Record<string, string[]> = {
  common: [],
  workload: ['common'],
  policy: ['common'],
  sandbox: ['policy', 'common'],
  sim: ['workload', 'policy', 'common'],
  evaluate: ['sim', 'sandbox', 'workload', 'policy', 'common'],
  calibrate: ['sim', 'workload', 'policy', 'common'],
  scenario: ['evaluate', 'sim', 'workload', 'policy', 'common'],
  suite: ['queue', 'scenario', 'evaluate', 'sim', 'workload', 'policy', 'common'],
  report: ['store', 'evaluate', 'sim', 'workload', 'policy', 'common'],
  store: ['common'],
  queue: ['common'],
  evolve: ['queue', 'evaluate', 'sandbox', 'policy', 'store', 'common'],
  dataplane: ['evaluate', 'sim', 'sandbox', 'workload', 'policy', 'common'],
  controlplane: ['evolve', 'evaluate', 'dataplane', 'sandbox', 'store', 'workload', 'policy', 'common'],
  cli: ['queue', 'controlplane', 'dataplane', 'evolve', 'evaluate', 'calibrate', 'scenario', 'suite', 'report', 'sim', 'sandbox', 'store', 'workload', 'policy', 'common'],
};

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });
}

describe('architecture', () => {
  it('imports between src folders follow the design direction', () => {
    const src = resolve('src');
    const violations: string[] = [];
    for (const file of files(src)) {
      const from = relative(src, file).split('/')[0]!;
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/from\s+'(\.[^']+)'/g)) {
        const target = relative(src, resolve(dirname(file), m[1]!)).split('/')[0]!;
        if (target === from) continue;
        if (!(ALLOWED[from] ?? []).includes(target)) violations.push(`${relative(src, file)} imports ${target}`);
      }
    }
    expect(violations).toEqual([]);
  });
});
