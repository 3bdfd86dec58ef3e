import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readStaged, settledDir, settleStaged, stagePolicy, STAGED_HEADER_PREFIX, StagingArea } from '../../src/dataplane/index.js';
import { sha256 } from '../../src/dataplane/staging.js';
import { UsageError } from '../../src/common/errors.js';
import { tempDir } from './helpers.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});
function staging(): string {
  const t = tempDir('staging-');
  cleanups.push(t.cleanup);
  return t.staging;
}
const code = (n: number) => `function shouldReschedule(ctx) { return false; }\nfunction schedule(ctx) { return { roles: ctx.plan.roles }; } // ${n}\n`;

describe('staging area', () => {
  it('writes <seq>-<name>.js with a header carrying the hash of the code, and reads it back', () => {
    const dir = staging();
    const s = stagePolicy(dir, { name: 'my policy/v2', code: code(1), candidateId: 12, fitness: 99.5, cycle: 4, reason: 'won' });
    expect(s.seq).toBe(1);
    expect(s.path).toBe(join(dir, '000001-my-policy-v2.js'));
    expect(readdirSync(dir)).toEqual(['000001-my-policy-v2.js']);
    const text = readFileSync(s.path, 'utf8');
    const [first, ...rest] = text.split('\n');
    expect(first!.startsWith(STAGED_HEADER_PREFIX)).toBe(true);
    expect(JSON.parse(first!.slice(STAGED_HEADER_PREFIX.length))).toMatchObject({ sha256: sha256(code(1)), candidateId: 12, name: 'my policy/v2' });
    expect(rest.join('\n')).toBe(code(1));
    const read = readStaged(dir);
    expect(read.latest).toEqual({ path: s.path, seq: 1, name: 'my policy/v2', code: code(1), sha256: s.sha256, candidateId: 12, fitness: 99.5, cycle: 4, reason: 'won' });
    expect(read.superseded).toEqual([]);
  });

  it('takes the newest complete file; older ones are moved to rejected/, each file is considered once', () => {
    const dir = staging();
    stagePolicy(dir, { name: 'a', code: code(1), candidateId: 1 });
    stagePolicy(dir, { name: 'b', code: code(2), candidateId: 2 });
    const c = stagePolicy(dir, { name: 'c', code: code(3), candidateId: 3 });
    expect(c.seq).toBe(3);
    const area = new StagingArea(dir);
    const read = area.take();
    expect(read.latest?.name).toBe('c');
    expect(read.superseded.map((s) => s.name)).toEqual(['b', 'a']);
    expect(readdirSync(settledDir(dir, 'rejected')).sort()).toEqual(['000001-a.js', '000002-b.js']);
    area.settle(read.latest!, 'deployed');
    expect(readdirSync(dir)).toEqual([]);
    expect(readdirSync(settledDir(dir, 'deployed'))).toEqual(['000003-c.js']);
    expect(area.take().latest).toBeNull();
    // Sequence numbers keep growing after files were settled.
    expect(stagePolicy(dir, { name: 'd', code: code(4), candidateId: 4 }).seq).toBe(4);
    const d = readStaged(dir).latest!;
    expect(settleStaged(d, 'rejected').path).toBe(join(settledDir(dir, 'rejected'), '000004-d.js'));
  });

  it('ignores temporary files, incomplete or tampered files, files not written by stagePolicy', () => {
    const dir = staging();
    const good = stagePolicy(dir, { name: 'good', code: code(1), candidateId: 1 });
    const full = readFileSync(good.path, 'utf8');
    writeFileSync(join(dir, '.000005-tmp.js.77.beef.tmp'), full);
    writeFileSync(join(dir, '000006-half.js'), full.slice(0, 60));
    writeFileSync(join(dir, '000007-tampered.js'), full.replace('return false', 'return true '));
    writeFileSync(join(dir, '000008-plain.js'), code(8));
    writeFileSync(join(dir, '000009-badheader.js'), `${STAGED_HEADER_PREFIX}{"format":"autopoiesis-staged"}\n${code(9)}`);
    writeFileSync(join(dir, 'README.txt'), 'not a policy');
    mkdirSync(join(dir, '000010-dir.js'));
    const read = readStaged(dir);
    expect(read.latest?.name).toBe('good');
    expect(read.ignored.sort()).toEqual(['000006-half.js', '000007-tampered.js', '000008-plain.js', '000009-badheader.js']);
    expect(read.superseded).toEqual([]);
  });

  it('writes atomically: no partial file ever has the final name', () => {
    const dir = staging();
    const big = code(0) + '// ' + 'x'.repeat(2_000_000) + '\n';
    const s = stagePolicy(dir, { name: 'big', code: big, candidateId: null });
    expect(readdirSync(dir)).toEqual([s.path.split('/').at(-1)]);
    expect(readStaged(dir).latest?.code).toBe(big);
  });

  it('rejects a request without name or code', () => {
    const dir = staging();
    expect(() => stagePolicy(dir, { name: ' ', code: code(1), candidateId: 1 })).toThrow(UsageError);
    expect(() => stagePolicy(dir, { name: 'x', code: '', candidateId: 1 })).toThrow(UsageError);
    expect(() => stagePolicy(dir, { name: 'x', code: code(1), candidateId: -1 })).toThrow(UsageError);
    expect(readStaged(join(dir, 'missing')).latest).toBeNull();
  });
});
