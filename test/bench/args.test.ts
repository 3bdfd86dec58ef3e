import { afterEach, describe, expect, it, vi } from 'vitest';
import { BenchUsageError, benchInput, helpText, parseBenchFlags } from '../../bench/args.js';
import { InputError, SimulationInvariantError } from '../../src/common/errors.js';

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

describe('bench input', () => {
  afterEach(() => vi.restoreAllMocks());

  it('gives back what it read', () => {
    expect(benchInput('x', () => 42)).toBe(42);
  });

  it("turns the user's error into one line naming the bench and exit 2", () => {
    const exit = vi.spyOn(process, 'exit').mockImplementation(((code: number) => {
      throw new Error(`exit ${code}`);
    }) as never);
    const lines: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((line: string) => void lines.push(line));
    expect(() =>
      benchInput('x', () => {
        throw new InputError('policy file not found', { file: 'nope.js' });
      }),
    ).toThrow('exit 2');
    expect(exit).toHaveBeenCalledWith(2);
    expect(lines).toEqual(['bench:x: nope.js: policy file not found']);
  });

  it('throws anything else as it is', () => {
    const exit = vi.spyOn(process, 'exit');
    const bug = new SimulationInvariantError('broken');
    expect(() =>
      benchInput('x', () => {
        throw bug;
      }),
    ).toThrow(bug);
    expect(exit).not.toHaveBeenCalled();
  });
});
