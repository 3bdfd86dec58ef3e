import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Command, Option } from 'commander';
import { UsageError } from '../common/errors.js';
import { packageRoot } from '../common/package-root.js';
import type { CliIO } from './io.js';
import { COMMENT_PREFIX, RUN_CONFIG_COMMANDS, configKey, configurableOptions } from './run-config.js';

export const CONFIG_FILE = 'autopoiesis.config.json';
const SEED_FILE = join('policies', 'my-seed.js');
/** The shipped seed the example seed is copied from. */
const SEED_SOURCE = 'evolving-infra.js';

/** Keep the option's default. */
const DEFAULT = Symbol('default');

/** The keys the example sets in each section (every other key is listed, with its meaning, under "//other keys"). */
const EXAMPLE: Record<(typeof RUN_CONFIG_COMMANDS)[number], { about: string; set: Record<string, unknown> }> = {
  evolve: {
    about: 'autopoiesis evolve --config autopoiesis.config.json: offline evolution, starting from your seeds in policies/ (remove "seeds" to start from the shipped ones)',
    set: { workload: DEFAULT, iterations: DEFAULT, maxMinutes: 30, islands: DEFAULT, mutator: DEFAULT, seeds: 'policies', db: join('runs', 'evolve.db'), seed: DEFAULT },
  },
  serve: {
    about: 'autopoiesis serve --config autopoiesis.config.json: continuous mode, serving with your seed and evolving in the background',
    set: { workload: 'cc', policy: SEED_FILE, speed: DEFAULT, durationMin: DEFAULT, mutator: DEFAULT, db: DEFAULT, staging: DEFAULT },
  },
  suite: {
    about: 'autopoiesis suite --config autopoiesis.config.json: your seed on every scenario against its oracles (remove "policies" to score every shipped seed)',
    set: { scenarios: DEFAULT, policies: [SEED_FILE], cacheDir: DEFAULT },
  },
};

const INTRO = [
  'Run settings for autopoiesis evolve, serve and suite: `autopoiesis evolve --config autopoiesis.config.json` reads the "evolve" section, and so on (a file may also hold one command\'s keys at the top, without sections).',
  'Each key is one of that command\'s flags in camelCase: --window-min is "windowMin", --no-cache is "cache": false. Values have the flag\'s type: numbers as JSON numbers, lists (--policies, --validate-seeds) as arrays, switches (--json, --resume) as true or false; the bounds are the flag\'s.',
  'A flag given on the command line overrides the file. A key set here counts as given: beside a --scenario it overrides the scenario\'s value, as the flag would. Leave a key out to keep its default.',
  'Keys starting with // are comments. Relative paths are taken from the directory the command runs in. An unknown key or a bad value stops the command with one line naming it (exit 2).',
  'Every flag, its default and what it does: docs/cli.md of autopoiesis; here, each section lists the keys it does not set under "//other keys".',
];

/** `--iterations <n>: iterations (each ...); default 200` */
function describe(option: Option): string {
  const d = option.defaultValue;
  const dflt = d === undefined ? '' : `; default ${JSON.stringify(d)}`;
  return `${option.flags}: ${option.description}${dflt}`;
}

/** The example file: sections for evolve, serve and suite, each key with a comment, generated from the commands' options. */
export function exampleConfig(program: Command): Record<string, unknown> {
  const out: Record<string, unknown> = { [COMMENT_PREFIX]: INTRO };
  for (const name of RUN_CONFIG_COMMANDS) {
    const cmd = program.commands.find((c) => c.name() === name);
    if (!cmd) throw new Error(`init: no ${name} command registered`);
    const options = configurableOptions(cmd);
    const { about, set } = EXAMPLE[name];
    const section: Record<string, unknown> = { [COMMENT_PREFIX]: about };
    for (const [key, value] of Object.entries(set)) {
      const option = options.find((o) => configKey(o) === key);
      if (!option) throw new Error(`init: ${name} has no option for the example key "${key}"`);
      section[`${COMMENT_PREFIX}${key}`] = describe(option);
      section[key] = value === DEFAULT ? option.defaultValue : value;
    }
    section[`${COMMENT_PREFIX}other keys`] = options.filter((o) => !(configKey(o) in set)).map((o) => `${configKey(o)} (${describe(o)})`);
    out[name] = section;
  }
  return out;
}

function policiesReadme(): string {
  const root = packageRoot();
  return `# Your seed policies

This folder holds your own seed policies: the initial population of
\`autopoiesis evolve\` (the \`"seeds": "policies"\` key of
${CONFIG_FILE}) and the starting policy of \`serve\` (\`"policy"\`).
\`my-seed.js\` is a copy of the shipped reference planner
(\`seeds/${SEED_SOURCE}\`) to start from: edit it, rename it, add more
\`.js\` files beside it. Every \`.js\` file here is a seed; sub-folders are not
read (\`serve\` stages its winners in \`policies/staging/\`).

A seed is one plain JavaScript script, no \`import\` or \`export\`, that
declares two functions:

- \`shouldReschedule(ctx)\`: called every monitoring step (5 s of simulated
  time); return true when it is worth replanning now.
- \`schedule(ctx)\`: called when it said yes; returns the plan (the role of
  every node, prefill or decode, and with contract version 2 the data plane's
  knobs: routing, eviction, how many nodes switch at once).

It runs in a sandbox (64 MB, 100 ms of CPU per call by default, no
\`require\`, timers or network; \`Math.random\` is seeded and \`Date.now()\` is
simulated time). A failed call keeps the last good plan and is counted by kind.

To try a seed: \`autopoiesis replay --policy policies/my-seed.js --workload cc\`,
then \`autopoiesis compare --workload cc --policies policies/my-seed.js\` and
\`autopoiesis suite --config ${CONFIG_FILE}\`.

The contract (every \`ctx\` field, the plan, the helper functions) and a guide
to writing a seed: \`docs/policies.md\` ("Writing a seed") and
\`src/policy/CONTRACT.md\` in autopoiesis (${root}); the shipped seeds, each
with a header saying what it does, are in ${join(root, 'seeds')}.
`;
}

interface InitFlags {
  force: boolean;
}

export function registerInitCommand(program: Command, io: CliIO): void {
  program
    .command('init')
    .description(`Write an example run config (${CONFIG_FILE}, every key commented) and a policies/ folder for your own seeds`)
    .argument('[dir]', 'where to write them', '.')
    .option('--force', 'overwrite files that exist', false)
    .action((dir: string, flags: InitFlags) => {
      const seed = readFileSync(join(packageRoot(), 'seeds', SEED_SOURCE), 'utf8');
      const files: [string, string][] = [
        [join(dir, CONFIG_FILE), JSON.stringify(exampleConfig(program), null, 2) + '\n'],
        [join(dir, 'policies', 'README.md'), policiesReadme()],
        [join(dir, SEED_FILE), `// Copied from autopoiesis seeds/${SEED_SOURCE} by \`autopoiesis init\`: make it yours.\n${seed}`],
      ];
      const existing = files.find(([path]) => existsSync(path));
      if (existing && !flags.force) throw new UsageError(`init: ${existing[0]} exists (give --force to overwrite)`);
      for (const [path, text] of files) {
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, text);
      }
      // The config's paths (policies/, runs/) are relative to where the command runs: DIR.
      const cd = resolve(dir) === resolve('.') ? '' : `cd ${dir} && `;
      io.out(`wrote ${files.map(([p]) => p).join(', ')}\nnext: ${cd}autopoiesis evolve --config ${CONFIG_FILE}\n`);
    });
}
