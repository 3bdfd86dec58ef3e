/** The span prototype as one engine: span run-queues for residency, count ranges for counts. */
import { CountRanges } from './count-ranges.js';
import type { Engine } from './ops.js';
import { SpanQueues } from './span-queues.js';

export class SpanEngine implements Engine {
  readonly queues: SpanQueues;
  readonly counts: CountRanges;

  constructor(nodeCount: number, l1: readonly number[], l2: readonly number[]) {
    this.queues = new SpanQueues(nodeCount, l1, l2);
    this.counts = new CountRanges(nodeCount);
  }

  detach(node: number, first: number, len: number): void {
    this.queues.detach(node, first, len);
  }
  push(node: number, first: number, len: number, cls: number): void {
    this.queues.push(node, first, len, cls);
  }
  fit(node: number): void {
    this.queues.fit(node);
  }
  add(node: number, first: number, len: number, delta: number): void {
    this.counts.add(node, first, len, delta);
  }
  move(node: number, first: number, len: number, cls: number): void {
    this.queues.move(node, first, len, cls);
  }

  get spanOps(): number {
    return this.queues.spanOps + this.counts.spanOps;
  }
}
