#!/usr/bin/env -S node --no-node-snapshot
// Launcher: isolated-vm on Node 20 needs --no-node-snapshot (passed by the shebang).
// It refuses to start, with one line and exit code 2, when the machine cannot
// run the engine: an unsupported Node.js, no compiled dist/ (npm ci builds it
// through the `prepare` script), or a native module that does not load.

const fail = (message) => {
  process.stderr.write(`autopoiesis: ${message}\n`);
  process.exit(2);
};

const [major, minor] = process.versions.node.split('.').map(Number);
if (major !== 20 || minor < 19) fail(`Node.js ${process.versions.node} is not supported: use Node.js 20 (>= 20.19)`);
if (!process.execArgv.includes('--no-node-snapshot')) {
  fail('start node with --no-node-snapshot (isolated-vm needs it on Node.js 20), or run bin/autopoiesis.js directly');
}

let runCli;
try {
  ({ runCli } = await import('../dist/src/cli/main.js'));
} catch (error) {
  fail(startupProblem(error));
}
process.exitCode = await runCli(process.argv.slice(2));

function startupProblem(error) {
  const message = String(error?.message ?? error).split('\n')[0];
  if (error?.code === 'ERR_MODULE_NOT_FOUND' && /dist[\\/]/.test(message)) {
    return 'the compiled code in dist/ is missing: run `npm ci` (it builds) or `npm run build`';
  }
  const native = /(better-sqlite3|isolated-vm)/.exec(String(error?.stack ?? message));
  if (error?.code === 'ERR_DLOPEN_FAILED' || error?.code === 'ERR_MODULE_NOT_FOUND' || native) {
    return `a dependency could not be loaded${native ? ` (${native[1]})` : ''}: ${message}; run \`npm ci\` with Node.js 20`;
  }
  return `cannot start: ${message}`;
}
