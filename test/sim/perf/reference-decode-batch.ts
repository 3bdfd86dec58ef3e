import type { DecodeBatchOptions, DecodeFinish } from '../../../src/sim/perf/decode-batch.js';

/**
 * Test-only reference for DecodeBatch: the same semantics, simulated one
 * iteration at a time with tokens counted per request, no closed forms.
 * Slow on purpose; it exists to be obviously right.
 */

interface Req {
  id: number;
  tokens: number;
  context: number;
  joinedAt: number;
  generated: number;
}

export class ReferenceDecodeBatch {
  private running: Req[] = [];
  private pending: Req[] = [];
  private instant: DecodeFinish[] = [];
  /** Start of the iteration in progress; null when idle. */
  private iterStart: number | null = null;
  private tau = 0;
  /** A removal changes the batch: at the iteration in progress's start ('reopen') or its end ('next'). */
  private removal: 'reopen' | 'next' | null = null;
  private clock = -Infinity;

  constructor(private readonly opts: DecodeBatchOptions) {}

  get size(): number {
    return this.running.length;
  }

  get waiting(): number {
    return this.pending.length;
  }

  private tol(): number {
    return 1e-7 * this.tau;
  }

  join(now: number, id: number, tokens: number, context: number): void {
    this.clock = Math.max(this.clock, now);
    if (tokens === 0) {
      this.instant.push({ id, at: now });
      return;
    }
    const r: Req = { id, tokens, context, joinedAt: now, generated: 0 };
    if (this.iterStart === null) {
      this.running.push(r);
      this.iterStart = now;
      this.draw();
    } else {
      this.pending.push(r);
    }
  }

  remove(id: number): number {
    const inst = this.instant.findIndex((f) => f.id === id);
    if (inst >= 0) {
      this.instant.splice(inst, 1);
      return 0;
    }
    const p = this.pending.findIndex((r) => r.id === id);
    if (p >= 0) return this.pending.splice(p, 1)[0]!.tokens;
    const i = this.running.findIndex((r) => r.id === id);
    if (i < 0) throw new Error(`unknown ${id}`);
    const [r] = this.running.splice(i, 1);
    const atStart = Math.abs(this.clock - this.iterStart!) <= this.tol();
    if (atStart) this.removal = 'reopen';
    else if (this.removal === null) this.removal = 'next';
    return Math.max(0, r!.tokens - r!.generated);
  }

  takeWaiting(): number[] {
    const ids = this.pending.map((r) => r.id);
    this.pending = [];
    return ids;
  }

  advance(now: number): DecodeFinish[] {
    this.clock = Math.max(this.clock, now);
    const out: DecodeFinish[] = [];
    for (;;) {
      if (this.iterStart === null) break;
      // A boundary that already started its iteration re-opens when someone
      // arrived exactly at it or a request was removed exactly at it.
      const start = this.iterStart;
      const eligible = this.pending.length > 0 && this.pending[0]!.joinedAt <= start + this.tol() && this.running.length < this.opts.maxBatch;
      if (this.removal === 'reopen' || (this.removal === null && eligible)) {
        this.removal = null;
        this.admit(start);
        if (this.running.length === 0) this.iterStart = null;
        else this.draw();
        continue;
      }
      const end = start + this.tau;
      if (end > now + this.tol()) break;
      // One iteration: everybody gains t_acc tokens.
      for (const r of this.running) r.generated += this.opts.tokensPerIteration;
      const done = this.running.filter((r) => r.generated >= r.tokens * (1 - 1e-9)).sort((a, b) => a.id - b.id);
      for (const r of done) out.push({ id: r.id, at: end });
      this.running = this.running.filter((r) => !done.includes(r));
      let changed = done.length > 0 || this.removal !== null;
      this.removal = null;
      changed = this.admit(end) || changed;
      this.iterStart = end;
      if (this.running.length === 0) this.iterStart = null;
      else if (changed) this.draw();
    }
    const keep: DecodeFinish[] = [];
    for (const f of this.instant) (f.at <= now ? out : keep).push(f);
    this.instant = keep;
    return out.sort((a, b) => a.at - b.at || a.id - b.id);
  }

  private admit(at: number): boolean {
    let any = false;
    while (this.pending.length > 0 && this.running.length < this.opts.maxBatch && this.pending[0]!.joinedAt <= at + this.tol()) {
      this.running.push(this.pending.shift()!);
      any = true;
    }
    return any;
  }

  private draw(): void {
    const b = this.running.length;
    const mean = this.running.reduce((s, r) => s + r.context + r.generated, 0) / b;
    this.tau = this.opts.iterTime(b, mean);
  }
}
