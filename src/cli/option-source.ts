import type { Command } from 'commander';

/**
 * Whether the user set an option: on the command line (commander value
 * source 'cli') or in the run config file of `--config` ('config',
 * src/cli/run-config.ts). Options left at their defaults are not given: beside
 * a scenario they do not override its values, on a resume they do not
 * override the stored settings.
 */
export function isGiven(cmd: Command, attributeName: string): boolean {
  const source = cmd.getOptionValueSource(attributeName);
  return source === 'cli' || source === 'config';
}
