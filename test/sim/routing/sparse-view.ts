import { freshStamp, TierCounts, type SparseCounts } from '../../../src/sim/kv/match-result.js';

/**
 * A sparse match view (kv/match-result.ts) with the counts of `gpu` and
 * `local`, laid out as `seed` picks: no level; one level holding the most
 * common nonzero count (as the shared system prompt is); one level holding
 * any count present; or two levels (which the router does not read: it
 * falls back to the arrays). A level also holds some nodes of other counts,
 * which then get entries, as nodes that left the unbroken set one by one;
 * some nodes of count 0 get an entry too. A level is copied (level()) or,
 * half the time, taken by reference (levelRef()) at an offset of a larger
 * array, as a match resuming from a saved walk takes it. Checked here: every
 * node's value is its array count.
 */
export function sparseView(gpu: Int32Array, local: Int32Array, seed: number): SparseCounts {
  let s = seed >>> 0 || 1;
  const rand = (): number => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
  const tier = (arr: Int32Array): TierCounts => {
    const n = arr.length;
    const t = new TierCounts(n);
    t.reset();
    const mode = Math.floor(rand() * 4);
    const freq = new Map<number, number>();
    for (const v of arr) if (v !== 0) freq.set(v, (freq.get(v) ?? 0) + 1);
    const values = [...freq.keys()];
    const common = values.length > 0 ? values.reduce((a, b) => (freq.get(b)! > freq.get(a)! ? b : a)) : 1 + Math.floor(rand() * 3);
    const levels = mode === 0 ? [] : mode === 1 ? [common] : mode === 2 ? [values.length > 0 ? values[Math.floor(rand() * values.length)]! : 2] : [common, 1 + Math.floor(rand() * 5)];
    const covered = new Int32Array(n).fill(-1);
    for (const v of levels) {
      const mask = new Int32Array((n + 31) >>> 5);
      for (let id = 0; id < n; id++) {
        if (arr[id] === v || rand() < 0.2) {
          mask[id >>> 5]! |= 1 << (id & 31);
          covered[id] = v;
        }
      }
      if (rand() < 0.5) t.level(mask, v);
      else {
        // Words at an offset of a larger array, with garbage around them that must not be read.
        const off = 1 + Math.floor(rand() * 3);
        const src = new Int32Array(off + mask.length + 2).fill(-1);
        src.set(mask, off);
        t.levelRef(src, off, v, freshStamp());
      }
    }
    for (let id = 0; id < n; id++) {
      const implicit = covered[id]! >= 0 ? covered[id]! : 0;
      if (implicit !== arr[id] || rand() < 0.1) t.set(id, arr[id]!);
    }
    for (let id = 0; id < n; id++) if (t.value(id) !== arr[id]) throw new Error(`sparse view: node ${id} counts ${t.value(id)}, not ${arr[id]}`);
    const filled = new Int32Array(n);
    t.fill(filled);
    for (let id = 0; id < n; id++) if (filled[id] !== arr[id]) throw new Error(`sparse view fill: node ${id} counts ${filled[id]}, not ${arr[id]}`);
    return t;
  };
  return { gpu: tier(gpu), local: tier(local) };
}
