import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { registerCommands } from '../../src/cli/commands.js';
import { bufferIO } from '../../src/cli/io.js';
import { runCli } from '../../src/cli/main.js';
import { RUN_CONFIG_COMMANDS, configKey, configurableOptions, readRunConfig } from '../../src/cli/run-config.js';

async function cli(args: string[]) {
  const io = bufferIO();
  const code = await runCli(args, io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

function program(): Command {
  const p = new Command();
  registerCommands(p, bufferIO());
  return p;
}

const command = (name: string) => program().commands.find((c) => c.name() === name)!;

function tmp(): string {
  return mkdtempSync(join(tmpdir(), 'ap-config-'));
}

function write(dir: string, name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

/** One stderr line `autopoiesis: CMD: FILE...`, exit 2, nothing on stdout, no database. */
async function refused(args: string[], db: string, pattern: RegExp) {
  const r = await cli([...args, '--db', db]);
  expect(r.code, r.stderr).toBe(2);
  expect(r.stdout).toBe('');
  const lines = r.stderr.trim().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
  expect(existsSync(db), 'nothing written').toBe(false);
}

describe('run config files: the schema', () => {
  it('every flag of evolve, serve and suite has a config key, and the keys are the flags in camelCase', () => {
    for (const name of RUN_CONFIG_COMMANDS) {
      const cmd = command(name);
      const flags = cmd.options.filter((o) => o.long !== '--config' && o.long !== '--help');
      expect(flags.length, name).toBeGreaterThan(5);
      const keys = configurableOptions(cmd).map(configKey);
      for (const o of flags) {
        expect(keys, `${name} ${o.long}`).toContain(o.attributeName());
        const camel = o.long!.replace(/^--(no-)?/, '').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
        expect(o.attributeName(), o.long).toBe(camel);
      }
      expect(keys).not.toContain('config');
    }
  });

  it('checks values as the flags do: numbers, bounds, lists, switches', () => {
    const dir = tmp();
    const evolve = command('evolve');
    const ok = write(dir, 'ok.json', JSON.stringify({ iterations: 3, exploit: 0.5, validateSeeds: [101, 102], resume: false, workload: 'cc', '//iterations': 'a comment' }));
    expect(readRunConfig(evolve, ok)).toEqual({ iterations: 3, exploit: 0.5, validateSeeds: [101, 102], resume: false, workload: 'cc' });
    for (const [settings, message] of [
      [{ iterations: 'many' }, /key "iterations" \(--iterations\): .*expected number/],
      [{ iterations: 2.5 }, /key "iterations" \(--iterations\): .*int/i],
      [{ iterations: -1 }, /key "iterations" \(--iterations\): .*>=0/],
      [{ exploit: 2 }, /key "exploit" \(--exploit\): .*<=1/],
      [{ validateSeeds: '101,102' }, /key "validateSeeds" \(--validate-seeds\): .*expected array/],
      [{ json: 'yes' }, /key "json" \(--json\): .*expected boolean/],
      [{ workload: 5 }, /key "workload" \(--workload\): .*expected string/],
    ] as const) {
      const file = write(dir, 'bad.json', JSON.stringify(settings));
      expect(() => readRunConfig(evolve, file), JSON.stringify(settings)).toThrow(message);
    }
    const suite = command('suite');
    expect(readRunConfig(suite, write(dir, 's.json', JSON.stringify({ policies: ['a.js', 'b.js'], cache: false })))).toEqual({ policies: ['a.js', 'b.js'], cache: false });
    expect(() => readRunConfig(suite, write(dir, 's2.json', JSON.stringify({ policies: 'a.js' })))).toThrow(/key "policies"/);
  });

  it('an option with a parser of its own: the file\'s string goes through it; an optional value takes true or a string', () => {
    const dir = tmp();
    const cmd = new Command('evolve')
      .option('--mode <m>', 'a mode', (v: string) => {
        if (v !== 'fast') throw new InvalidArgumentError(`--mode: "${v}" is not a mode`);
        return v.toUpperCase();
      })
      .option('--out [file]', 'where');
    expect(readRunConfig(cmd, write(dir, 'a.json', JSON.stringify({ mode: 'fast', out: true })))).toEqual({ mode: 'FAST', out: true });
    expect(readRunConfig(cmd, write(dir, 'b.json', JSON.stringify({ out: 'x.md' })))).toEqual({ out: 'x.md' });
    expect(() => readRunConfig(cmd, write(dir, 'c.json', JSON.stringify({ mode: 'slow' })))).toThrow(/key "mode" \(--mode\): --mode: "slow" is not a mode$/);
  });

  it('a file with one section per command gives each command its section', () => {
    const dir = tmp();
    const file = write(dir, 'all.json', JSON.stringify({ '//': ['comment'], evolve: { iterations: 7 }, serve: { speed: 0 }, suite: { scenarios: 'steady-cc' } }));
    expect(readRunConfig(command('evolve'), file)).toEqual({ iterations: 7 });
    expect(readRunConfig(command('serve'), file)).toEqual({ speed: 0 });
    expect(readRunConfig(command('suite'), file)).toEqual({ scenarios: 'steady-cc' });
    expect(() => readRunConfig(command('evolve'), write(dir, 'typo.json', JSON.stringify({ evolve: {}, sevre: {} })))).toThrow(/unknown key "sevre"/);
    expect(() => readRunConfig(command('serve'), write(dir, 'nested.json', JSON.stringify({ evolve: {}, serve: { speeed: 1 } })))).toThrow(/unknown key "serve.speeed" \(did you mean "speed"\?\)/);
  });
});

describe('run config files: the commands', () => {
  it('an unknown key: one line naming the command, the file and the key, exit 2, nothing written', async () => {
    const dir = tmp();
    const file = write(dir, 'config.json', JSON.stringify({ iteratons: 5 }));
    await refused(['evolve', '--config', file], join(dir, 'a.db'), new RegExp(`^autopoiesis: evolve: ${file}: unknown key "iteratons" \\(did you mean "iterations"\\?\\)$`));
    await refused(['serve', '--config', file], join(dir, 'b.db'), new RegExp(`^autopoiesis: serve: ${file}: unknown key "iteratons"`));
  });

  it('a wrong type: one line naming the key and its flag, exit 2', async () => {
    const dir = tmp();
    const file = write(dir, 'config.json', JSON.stringify({ iterations: 'many' }));
    await refused(['evolve', '--config', file], join(dir, 'a.db'), new RegExp(`^autopoiesis: evolve: ${file}: key "iterations" \\(--iterations\\): .*expected number, received string$`));
  });

  it('a missing file and invalid JSON (with line and column): one line, exit 2', async () => {
    const dir = tmp();
    await refused(['evolve', '--config', join(dir, 'nope.json')], join(dir, 'a.db'), /^autopoiesis: evolve: .*nope\.json: cannot read: no such file$/);
    const bad = write(dir, 'bad.json', '{\n  "iterations": 5,\n}\n');
    await refused(['evolve', '--config', bad], join(dir, 'b.db'), new RegExp(`^autopoiesis: evolve: ${bad}:3:1: invalid JSON: `));
    const list = write(dir, 'list.json', '[1, 2]');
    await refused(['evolve', '--config', list], join(dir, 'c.db'), /evolve: .*list\.json: expected a JSON object of settings/);
  });

  it("the file's values reach the command, and a flag given on the command line overrides the file", async () => {
    const dir = tmp();
    // A split the cluster cannot have: the command's own check names the value it was given.
    const file = write(dir, 'config.json', JSON.stringify({ split: '4P4D', workload: 'nope-from-file' }));
    let r = await cli(['evolve', '--config', file, '--workload', 'cc', '--db', join(dir, 'a.db')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/4P4D/);
    r = await cli(['evolve', '--config', file, '--split', '4P5D', '--db', join(dir, 'b.db')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/nope-from-file/);
    expect(r.stderr).not.toMatch(/4P4D/);
    expect(existsSync(join(dir, 'a.db')) || existsSync(join(dir, 'b.db'))).toBe(false);
  });
});

describe('run config files: a key set counts as given', () => {
  it('beside several scenarios a file key is refused as the flag is (a default is not)', async () => {
    const dir = tmp();
    const scenarios = ['--scenario', 'steady-cc,restart-cc'];
    const file = write(dir, 'nodes.json', JSON.stringify({ nodes: 4 }));
    await refused(['evolve', ...scenarios, '--config', file], join(dir, 'a.db'), /--nodes cannot be given with several scenarios/);
    await refused(['evolve', ...scenarios, '--nodes', '4'], join(dir, 'b.db'), /--nodes cannot be given with several scenarios/);
    // Without the key nothing is given: that check passes and a later one (validation on the training seed) stops the run.
    const other = write(dir, 'other.json', JSON.stringify({ '//nodes': 'left out', validateSeeds: [1] }));
    await refused(['evolve', ...scenarios, '--config', other], join(dir, 'c.db'), /--validate-seeds: seed 1 is the training seed/);
  });
});

describe('autopoiesis init', () => {
  it('writes a commented config that --config accepts for every command, and a policies/ layout', async () => {
    const dir = join(tmp(), 'project');
    const r = await cli(['init', dir]);
    expect(r.code, r.stderr).toBe(0);
    const file = join(dir, 'autopoiesis.config.json');
    const config = JSON.parse(readFileSync(file, 'utf8'));
    for (const name of RUN_CONFIG_COMMANDS) {
      const settings = readRunConfig(command(name), file);
      expect(Object.keys(settings).length, name).toBeGreaterThan(1);
      // Every key set has its comment, and every other key is listed with its meaning.
      for (const key of Object.keys(settings)) expect(config[name][`//${key}`], `${name}.${key}`).toMatch(/^--/);
      const listed = (config[name]['//other keys'] as string[]).map((l) => l.split(' ')[0]);
      expect([...Object.keys(settings), ...listed].sort(), name).toEqual(configurableOptions(command(name)).map(configKey).sort());
    }
    expect(readRunConfig(command('evolve'), file)).toMatchObject({ seeds: 'policies', iterations: 200, maxMinutes: 30 });
    expect(r.stdout).toContain(`next: cd ${dir} && autopoiesis evolve --config autopoiesis.config.json`);
    // Through the commands: the file is accepted, and the flag beside it is what stops them.
    // (Its paths are relative to DIR, where the commands would run; here they are given as flags.)
    const seeds = join(dir, 'policies');
    for (const args of [
      ['evolve', '--workload', 'no-such-preset', '--seeds', seeds, '--db', join(dir, 'x.db')],
      ['serve', '--workload', 'no-such-preset', '--policy', join(seeds, 'my-seed.js'), '--db', join(dir, 'y.db')],
      ['suite', '--scenarios', 'no-such-scenario'],
    ]) {
      const run = await cli([...args, '--config', file]);
      expect(run.code, args[0]).toBe(2);
      expect(run.stderr.trim().split('\n'), args[0]).toHaveLength(1);
      expect(run.stderr, args[0]).toMatch(/no-such-/);
      expect(run.stderr, args[0]).not.toContain('autopoiesis.config.json');
    }
    expect(readFileSync(join(dir, 'policies', 'README.md'), 'utf8')).toMatch(/docs\/policies\.md/);
    const seed = readFileSync(join(dir, 'policies', 'my-seed.js'), 'utf8');
    expect(seed).toMatch(/function shouldReschedule\(ctx\)/);
    expect(seed).toMatch(/function schedule\(ctx\)/);
  });

  it('refuses to overwrite (one line, exit 2) unless --force', async () => {
    const dir = tmp();
    const mine = write(dir, 'autopoiesis.config.json', '{"evolve": {"iterations": 3}}\n');
    const r = await cli(['init', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/autopoiesis\.config\.json exists \(give --force to overwrite\)/);
    expect(readFileSync(mine, 'utf8')).toBe('{"evolve": {"iterations": 3}}\n');
    expect(existsSync(join(dir, 'policies'))).toBe(false);
    const forced = await cli(['init', dir, '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(readFileSync(mine, 'utf8')).toMatch(/"\/\/other keys"/);
  });
});
