import { Command, CommanderError, Option } from 'commander';
import { AutopoiesisError } from '../common/errors.js';
import { processIO, PROGRESS_MODES, type CliIO, type ProgressMode } from './io.js';
import { registerCommands } from './commands.js';

/**
 * Run the CLI with the given arguments; returns the exit code instead of
 * exiting, so that tests can call it in-process.
 * Exit codes: 0 ok, 1 internal or infrastructure failure, 2 usage or input error.
 */
export async function runCli(argv: string[], io: CliIO = processIO): Promise<number> {
  const program = new Command();
  program
    .name('autopoiesis')
    .description('Self-evolving serving-policy engine on a simulated GB300 cluster')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.out(s),
      writeErr: (s) => io.err(s),
    })
    .showSuggestionAfterError(true)
    .configureHelp({ showGlobalOptions: true })
    .addOption(
      new Option('--progress <mode>', 'progress on stderr: auto is a bar on a terminal and nothing elsewhere, lines a plain line at most every 30 s (for logs); default auto').choices(PROGRESS_MODES),
    );
  // The commands read the flag when they run (after parsing); without it, what the caller's io says.
  const commandIO: CliIO = Object.create(io, {
    progress: { get: () => (program.opts().progress as ProgressMode | undefined) ?? io.progress },
  });
  registerCommands(program, commandIO);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    return exitCodeFor(error, io);
  }
}

function exitCodeFor(error: unknown, io: CliIO): number {
  if (error instanceof CommanderError) {
    // help and version are not failures; commander already printed its message.
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return 0;
    return 2;
  }
  if (error instanceof AutopoiesisError) {
    io.err(`autopoiesis: ${error.message}\n`);
    return error.exitCode;
  }
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  io.err(`autopoiesis: internal error: ${message}\n`);
  return 1;
}
