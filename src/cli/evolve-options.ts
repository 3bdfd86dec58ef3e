import { InvalidArgumentError } from 'commander';
import { z } from 'zod';
import { withConfigSchema } from './options.js';

/**
 * A comma-separated list of seeds (`101,102`): at least one, each a whole
 * number >= 0. Repeats and a seed equal to the training seed are refused
 * later, once the training seeds are known (checkValidateSeeds). In a run
 * config file: an array of whole numbers.
 */
export function seedListOption(name: string) {
  return withConfigSchema((value: string): number[] => {
    const items = value.split(',').map((s) => s.trim());
    if (value.trim() === '' || items.some((s) => s === '')) throw new InvalidArgumentError(`${name} needs a comma-separated list of seeds, got "${value}"`);
    return items.map((s) => {
      if (!/^\d+$/.test(s) || !Number.isSafeInteger(Number(s))) throw new InvalidArgumentError(`${name}: "${s}" is not a whole number >= 0`);
      return Number(s);
    });
  }, z.array(z.number().int().min(0).max(Number.MAX_SAFE_INTEGER)).min(1));
}
