import { describe, expect, it } from 'vitest';
import { BenchUsageError, helpText, parseBenchFlags } from '../../bench/args.js';

const spec = {
  minutes: { type: 'string', help: 'wall budget, minutes (default 10)' },
  cold: { type: 'boolean', help: 'start cold' },
} as const;

describe('bench flags', () => {
  it('reads string and boolean flags, absent ones as undefined and false', () => {
    expect(parseBenchFlags('x', spec, ['--minutes', '3', '--cold'])).toEqual({ minutes: '3', cold: true });
    expect(parseBenchFlags('x', spec, [])).toEqual({ minutes: undefined, cold: false });
  });

  it('rejects an unknown or misspelt flag in one line naming the bench', () => {
    expect(() => parseBenchFlags('x', spec, ['--minuts', '3'])).toThrow(BenchUsageError);
    expect(() => parseBenchFlags('x', spec, ['--minuts', '3'])).toThrow(/^bench:x: Unknown option '--minuts'[^\n]*$/);
  });

  it('rejects a missing value and a stray positional', () => {
    expect(() => parseBenchFlags('x', spec, ['--minutes'])).toThrow(/argument missing/);
    expect(() => parseBenchFlags('x', spec, ['10'])).toThrow(BenchUsageError);
  });

  it('answers --help instead of running, and lists every flag', () => {
    expect(parseBenchFlags('x', spec, ['--help'])).toBe('help');
    const text = helpText('x', 'does x', spec);
    expect(text).toContain('--minutes VALUE');
    expect(text).toContain('--cold');
    expect(text).toContain('--help');
  });
});
