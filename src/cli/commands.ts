import type { Command } from 'commander';
import type { CliIO } from './io.js';

/** Every command registers itself here; one file per command under src/cli/. */
export function registerCommands(program: Command, io: CliIO): void {
  void program;
  void io;
}
