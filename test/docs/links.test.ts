import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bufferIO } from '../../src/cli/io.js';
import { runCli } from '../../src/cli/main.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const readme = join(root, 'README.md');

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? markdownFiles(path) : path.endsWith('.md') ? [path] : [];
  });
}

const docs = [readme, ...markdownFiles(join(root, 'docs'))];

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
function anchors(text: string): Set<string> {
  const out = new Set<string>();
  for (const line of text.replace(/```[\s\S]*?```/g, '').split('\n')) {
    const m = /^#{1,6} (.*)$/.exec(line);
    if (m) out.add(m[1]!.toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-'));
  }
  return out;
}

/** Relative markdown links `[text](target)` outside code blocks and code spans. */
function links(text: string): string[] {
  const prose = text.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((t) => !/^[a-z]+:/.test(t));
}

describe('README and docs/', () => {
  it('the README is at most 250 lines', () => {
    expect(readFileSync(readme, 'utf8').split('\n').length).toBeLessThanOrEqual(251);
  });

  it('every relative link points to a file of the repository, and every #anchor to a heading of it', () => {
    const broken: string[] = [];
    for (const file of docs) {
      for (const target of links(readFileSync(file, 'utf8'))) {
        const [path, anchor] = target.split('#') as [string, string | undefined];
        const dest = path === '' ? file : resolve(dirname(file), path);
        const where = `${relative(root, file)} -> ${target}`;
        if (!dest.startsWith(root)) broken.push(`${where} (outside the repository)`);
        else if (!existsSync(dest)) broken.push(`${where} (no such file)`);
        else if (anchor && dest.endsWith('.md') && !anchors(readFileSync(dest, 'utf8')).has(anchor)) broken.push(`${where} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('the design is referenced inside the repository, never at ../shared', () => {
    for (const file of docs) expect(readFileSync(file, 'utf8'), relative(root, file)).not.toMatch(/\.\.\/shared\/design/);
  });

  it('the README command table and docs/cli.md name every command of --help', async () => {
    const io = bufferIO();
    await runCli(['--help'], io);
    const help = io.stdout + io.stderr;
    const commands = [...help.split('Commands:')[1]!.matchAll(/^ {2}([a-z]+)\b/gm)].map((m) => m[1]!).filter((c) => c !== 'help');
    expect(commands.length).toBeGreaterThanOrEqual(14);
    const text = readFileSync(readme, 'utf8');
    const cli = readFileSync(join(root, 'docs', 'cli.md'), 'utf8');
    for (const c of commands) {
      expect(text, c).toMatch(new RegExp(`^\\| \`${c}[\` ]`, 'm'));
      expect(cli, c).toMatch(new RegExp(`^#{2,3} .*\`(autopoiesis )?${c}\``, 'm'));
    }
  });
});
