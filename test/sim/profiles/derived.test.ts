import { describe, expect, it } from 'vitest';
import { coefficientsFor, kvCapacity, loadModel, loadNodeKind, scaleCoefficients } from '../../../src/sim/profiles/index.js';

const gb300 = loadNodeKind('gb300');
const gb200 = loadNodeKind('gb200');
const h200 = loadNodeKind('h200');
const glm = loadModel('glm-5.2');
const kimi = loadModel('kimi-k2.6');

describe('KV capacity', () => {
  it('gb300 host holds ~20M tokens of glm-5.2 KV and the GPUs ~1/4 of that (calibration)', () => {
    const cap = kvCapacity(gb300, glm);
    expect(cap.hostTokens).toBeGreaterThan(18e6);
    expect(cap.hostTokens).toBeLessThan(22e6);
    expect(cap.gpuTokens / cap.hostTokens).toBeCloseTo(0.25, 2);
    expect(cap.blockTokens).toBe(512);
    expect(cap.hostBlocks).toBe(Math.floor(cap.hostTokens / 512));
    expect(cap.gpuBlocks).toBe(Math.floor(cap.gpuTokens / 512));
  });

  it('is computed in whole tokens and blocks', () => {
    const cap = kvCapacity(gb300, glm, 1000);
    expect(cap.hostTokens).toBe(Math.floor(1e12 / 50_400));
    expect(cap.hostBlocks).toBe(Math.floor(cap.hostTokens / 1000));
    expect(() => kvCapacity(gb300, glm, 0)).toThrow(RangeError);
  });

  it('kimi-k2.6 on gb300 is of the same order (~20M tokens)', () => {
    const cap = kvCapacity(gb300, kimi);
    expect(cap.hostTokens).toBeGreaterThan(18e6);
    expect(cap.hostTokens).toBeLessThan(25e6);
  });

  it('smaller GPUs hold fewer tokens', () => {
    expect(kvCapacity(gb200, glm).gpuTokens).toBeLessThan(kvCapacity(gb300, glm).gpuTokens);
    expect(kvCapacity(h200, glm).gpuTokens).toBeLessThan(kvCapacity(gb200, glm).gpuTokens);
  });
});

describe('coefficient scaling', () => {
  it('gb300 gets the model coefficients unchanged', () => {
    const spec = coefficientsFor(glm, gb300);
    expect(spec.prefill).toEqual({ c0: glm.prefill.c0, c1: glm.prefill.c1, c2: glm.prefill.c2, c3: glm.prefill.c3 });
    expect(spec.decode).toEqual({ d0: glm.decode.d0, d1: glm.decode.d1, d2: glm.decode.d2 });
    expect(spec.decodeContext.perToken).toBe(glm.decodeContext.perToken);
    expect(spec.shape).toEqual({ routedExperts: 256, expertsPerToken: 8, tokensFed: 4 });
    expect(spec.noiseCv).toBe(gb300.noiseCv);
  });

  it('slower kinds divide by their relative speeds; restore scales with the host link', () => {
    const spec = coefficientsFor(glm, gb200);
    expect(spec.prefill.c1).toBeCloseTo(glm.prefill.c1 / 0.67, 15);
    expect(spec.decode.d1).toBeCloseTo(glm.decode.d1 / 0.9, 15);
    expect(spec.decodeContext.perToken).toBeCloseTo(glm.decodeContext.perToken / 0.9, 20);
    expect(spec.prefill.c3).toBe(glm.prefill.c3); // same NVLink-C2C
    const h = scaleCoefficients(glm, h200, gb300);
    expect(h.prefill.c3).toBeCloseTo(glm.prefill.c3 * 3, 20); // 600 vs 200 GB/s
    expect(h.prefill.c0).toBeCloseTo(glm.prefill.c0 / 0.3, 12);
  });
});
