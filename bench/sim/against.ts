import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Build revision `rev` of the repository at `repoRoot` in a temporary clone:
 * git clone, checkout, this tree's node_modules linked in (no registry
 * access), tsc. Returns the clone's directory; the caller removes it.
 */
export function buildRevision(repoRoot: string, rev: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'bench-sim-against-'));
  const run = (cmd: string, args: string[], cwd: string): void => {
    execFileSync(cmd, args, { cwd, stdio: ['ignore', 'ignore', 'inherit'] });
  };
  try {
    run('git', ['clone', '--quiet', '--no-checkout', repoRoot, dir], repoRoot);
    run('git', ['checkout', '--quiet', rev], dir);
    const modules = join(repoRoot, 'node_modules');
    if (!existsSync(modules)) throw new Error(`no node_modules in ${repoRoot}: run npm ci there first`);
    symlinkSync(modules, join(dir, 'node_modules'), 'dir');
    run(join(modules, '.bin', 'tsc'), ['-p', 'tsconfig.json'], dir);
    return dir;
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

export function removeRevision(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

export interface RunSample {
  simSeconds: number;
  events: number;
  requests: number;
  wall: number;
  cpu: number;
  rss: number;
  maxRss: number;
}

/** One run in a fresh node process (dist/bench/sim/run-once.js) against the simulator at `simIndex`. */
export function runOnce(runner: string, simIndex: string, scenario?: object): RunSample {
  const args = ['--no-node-snapshot', runner, simIndex, ...(scenario ? [JSON.stringify(scenario)] : [])];
  const out = execFileSync(process.execPath, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  const line = out.trim().split('\n').pop() ?? '';
  return JSON.parse(line) as RunSample;
}


