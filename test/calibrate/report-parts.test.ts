import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/common/errors.js';
import { combineModelErrors, learningOf, CALIBRATION_BEGIN, CALIBRATION_DOC, CALIBRATION_END, replaceCalibrationSection, summarizeLearning } from '../../src/calibrate/index.js';

describe('model error from SimResult.learning', () => {
  it('is null until a result carries the field in the expected shape', () => {
    expect(learningOf({ metrics: {} })).toBeNull();
    expect(learningOf({ learning: null })).toBeNull();
    expect(learningOf({ learning: { mape: 'bad' } })).toBeNull();
    expect(learningOf({ learning: { mode: 'given', convergedAtSeconds: null, mape: { prefillSingle: null, prefillBatch: null, decode: null, mean: null } } })).toBeNull();
    expect(summarizeLearning([null, null])).toBeNull();
  });

  it('averages the errors (percent) of the runs that report one, with the slowest convergence in serving seconds', () => {
    const a = learningOf({ learning: { mode: 'online', convergedAtSeconds: 40, convergenceSeconds: 40, mape: { prefillSingle: 4, prefillBatch: 6, decode: 2, mean: 5 } } });
    // An agent setup delays the start of serving: convergence counts serving seconds when the simulator gives them.
    const b = learningOf({ learning: { convergedAtSeconds: 190, convergenceSeconds: 55, mape: { prefillSingle: 5, prefillBatch: null, decode: 4, mean: 7 } } });
    const c = learningOf({ learning: { convergedAtSeconds: 30, mape: { prefillSingle: null, prefillBatch: null, decode: null, mean: null } } });
    expect(a).not.toBeNull();
    expect(summarizeLearning([a, null, b])).toEqual({
      runs: 2,
      mapePct: { prefillSingle: 4.5, prefillBatch: 6, decode: 3, mean: 6 },
      convergedAtSeconds: 55,
    });
    expect(summarizeLearning([c])).toEqual({ runs: 1, mapePct: { prefillSingle: null, prefillBatch: null, decode: null, mean: null }, convergedAtSeconds: 30 });
  });
});

describe('model error over seeds', () => {
  it('averages each seed\'s summary, so the slowest convergence does not grow with the number of runs', () => {
    const seed1 = { runs: 51, mapePct: { prefillSingle: 0.4, prefillBatch: 0.4, decode: 1.2, mean: 0.7 }, convergedAtSeconds: 60 };
    const seed2 = { runs: 51, mapePct: { prefillSingle: 0.2, prefillBatch: null, decode: 1.4, mean: 0.9 }, convergedAtSeconds: 80 };
    expect(combineModelErrors([seed1, seed2, null])).toEqual({
      runs: 102,
      mapePct: { prefillSingle: 0.3, prefillBatch: 0.4, decode: 1.3, mean: 0.8 },
      convergedAtSeconds: 70,
    });
    expect(combineModelErrors([seed1])).toEqual(seed1);
    expect(combineModelErrors([null])).toBeNull();
  });
});

describe('calibration section of docs/calibration.md', () => {
  it('replaces what lies between the markers and keeps the rest', () => {
    const text = `# T\n\nbefore\n${CALIBRATION_BEGIN}\nold table\n${CALIBRATION_END}\nafter\n`;
    const out = replaceCalibrationSection(text, 'new table\n');
    expect(out).toBe(`# T\n\nbefore\n${CALIBRATION_BEGIN}\nnew table\n${CALIBRATION_END}\nafter\n`);
    expect(replaceCalibrationSection(out, 'new table')).toBe(out);
  });

  it('is an input error without the markers', () => {
    expect(() => replaceCalibrationSection('# no markers\n', 'x', 'R.md')).toThrow(InputError);
    expect(() => replaceCalibrationSection(`${CALIBRATION_END}\n${CALIBRATION_BEGIN}\n`, 'x')).toThrow(/no calibration section/);
  });
});

describe('the shipped calibration doc', () => {
  const read = (name: string) => readFileSync(fileURLToPath(new URL(`../../${name}`, import.meta.url)), 'utf8');

  it('--update-docs writes docs/calibration.md by default, which has exactly one pair of markers, and the README none', () => {
    expect(CALIBRATION_DOC).toBe('docs/calibration.md');
    const doc = read(CALIBRATION_DOC);
    expect(doc.split(CALIBRATION_BEGIN)).toHaveLength(2);
    expect(doc.split(CALIBRATION_END)).toHaveLength(2);
    const rewritten = replaceCalibrationSection(doc, 'x');
    expect(rewritten.startsWith(doc.slice(0, doc.indexOf(CALIBRATION_BEGIN)))).toBe(true);
    expect(read('README.md')).not.toContain('calibration:begin');
  });
});
