import type { Command } from 'commander';
import type { CliIO } from './io.js';
import { registerSimulateCommand } from './simulate.js';
import { registerTraceCommand } from './trace.js';
import { registerReplayCommand } from './replay.js';
import { registerCompareCommand } from './compare.js';
import { registerEvolveCommand } from './evolve.js';
import { registerLineageCommands } from './lineage.js';
import { registerServeCommand } from './serve.js';
import { registerCalibrateCommand } from './calibrate.js';
import { registerSuiteCommands } from './suite.js';
import { registerReportCommand } from './report.js';
import { registerWorkerCommand } from './worker.js';
import { registerInitCommand } from './init.js';
import { RUN_CONFIG_COMMANDS, withRunConfig } from './run-config.js';

/** Every command registers itself here; one file per command under src/cli/. */
export function registerCommands(program: Command, io: CliIO): void {
  registerSimulateCommand(program, io);
  registerTraceCommand(program, io);
  registerReplayCommand(program, io);
  registerCompareCommand(program, io);
  registerEvolveCommand(program, io);
  registerLineageCommands(program, io);
  registerServeCommand(program, io);
  registerCalibrateCommand(program, io);
  registerSuiteCommands(program, io);
  registerReportCommand(program, io);
  registerWorkerCommand(program, io);
  registerInitCommand(program, io);
  // `--config FILE.json` on the commands that run long jobs; the file's keys are derived from their options.
  for (const name of RUN_CONFIG_COMMANDS) withRunConfig(program.commands.find((c) => c.name() === name)!);
}
