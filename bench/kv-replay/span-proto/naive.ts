/**
 * The naive model of the same operations, for tests: per (node, tier) a map
 * id -> (key, class), eviction by scanning for the smallest key of class 0,
 * then of class 1; per node a map id -> count. Slow and obviously right.
 */
import type { Engine } from './ops.js';
import type { OnEvict } from './span-queues.js';

export class NaiveEngine implements Engine {
  readonly resident: Map<number, { key: number; cls: number }>[];
  readonly counts: Map<number, number>[];
  onEvict: OnEvict | null = null;
  private seq = 0;

  constructor(
    nodeCount: number,
    private readonly l1: readonly number[],
    private readonly l2: readonly number[],
  ) {
    this.resident = Array.from({ length: nodeCount * 2 }, () => new Map());
    this.counts = Array.from({ length: nodeCount }, () => new Map());
  }

  detach(node: number, first: number, len: number): void {
    for (let t = 0; t < 2; t++) for (let id = first; id < first + len; id++) this.resident[node * 2 + t]!.delete(id);
  }

  push(node: number, first: number, len: number, cls: number): void {
    const newest = (this.seq += len);
    for (let t = 0; t < 2; t++) {
      const m = this.resident[node * 2 + t]!;
      for (let j = 0; j < len; j++) {
        if (m.has(first + j)) throw new Error(`naive: block ${first + j} pushed while resident`);
        m.set(first + j, { key: newest - j, cls });
      }
    }
  }

  fit(node: number): void {
    for (let t = 0; t < 2; t++) {
      const nt = node * 2 + t;
      const m = this.resident[nt]!;
      const cap = t === 0 ? this.l1[node]! : this.l2[node]!;
      while (m.size > cap) {
        let best = -1;
        let bestKey = Infinity;
        let bestCls = 2;
        for (const [id, { key, cls }] of m) {
          if (cls < bestCls || (cls === bestCls && key < bestKey)) {
            best = id;
            bestKey = key;
            bestCls = cls;
          }
        }
        m.delete(best);
        this.onEvict?.(nt, best, 1);
      }
    }
  }

  add(node: number, first: number, len: number, delta: number): void {
    const m = this.counts[node]!;
    for (let id = first; id < first + len; id++) {
      const c = (m.get(id) ?? 0) + delta;
      if (c < 0) throw new Error(`naive: count of ${id} below 0`);
      if (c === 0) m.delete(id);
      else m.set(id, c);
    }
  }

  move(node: number, first: number, len: number, cls: number): void {
    for (let t = 0; t < 2; t++) {
      const m = this.resident[node * 2 + t]!;
      for (let id = first; id < first + len; id++) {
        const e = m.get(id);
        if (e) e.cls = cls;
      }
    }
  }
}
