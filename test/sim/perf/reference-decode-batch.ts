import type { DecodeBatchOptions, DecodeFinish } from '../../../src/sim/perf/decode-batch.js';

/**
 * Test-only reference for DecodeBatch: the same semantics, simulated one
 * iteration at a time with tokens counted per request, no closed forms.
 * Slow on purpose; it exists to be obviously right. With a KV capacity it
 * counts each request's KV (prompt + generated) and checks admission and
 * retraction by summing them at every boundary.
 */

interface Req {
  id: number;
  tokens: number;
  context: number;
  joinedAt: number;
  generated: number;
  /** Prompt KV tokens. */
  kv: number;
  /** When it last entered the batch, and its KV then (retraction order). */
  enteredAt: number;
  entryKv: number;
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
  private readonly cap: number;
  private readonly reserve: number;
  retractions = 0;

  constructor(private readonly opts: DecodeBatchOptions) {
    this.cap = opts.kvCapacityTokens ?? Infinity;
    this.reserve = opts.kvReserveTokens ?? 0;
  }

  get size(): number {
    return this.running.length;
  }

  get waiting(): number {
    return this.pending.length;
  }

  private tol(): number {
    return 1e-7 * this.tau;
  }

  join(now: number, id: number, tokens: number, context: number, kv = 0): void {
    this.clock = Math.max(this.clock, now);
    if (tokens === 0) {
      this.instant.push({ id, at: now });
      return;
    }
    const r: Req = { id, tokens, context, joinedAt: now, generated: 0, kv, enteredAt: now, entryKv: kv };
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
    if (p >= 0) {
      const [w] = this.pending.splice(p, 1);
      // With a KV capacity the head may have held the queue up: the batch changes at the next boundary.
      if (p === 0 && Number.isFinite(this.cap) && this.iterStart !== null) this.markRemoval();
      return w!.tokens - w!.generated;
    }
    const i = this.running.findIndex((r) => r.id === id);
    if (i < 0) throw new Error(`unknown ${id}`);
    const [r] = this.running.splice(i, 1);
    this.markRemoval();
    return Math.max(0, r!.tokens - r!.generated);
  }

  private markRemoval(): void {
    const atStart = Math.abs(this.clock - this.iterStart!) <= this.tol();
    if (atStart) this.removal = 'reopen';
    else if (this.removal === null) this.removal = 'next';
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
      const eligible = this.pending.length > 0 && this.pending[0]!.joinedAt <= start + this.tol() && this.running.length < this.opts.maxBatch && this.fits(this.pending[0]!);
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
      changed = this.retract(end) || changed;
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
    while (this.pending.length > 0 && this.running.length < this.opts.maxBatch && this.pending[0]!.joinedAt <= at + this.tol() && this.fits(this.pending[0]!)) {
      const r = this.pending.shift()!;
      r.enteredAt = at;
      r.entryKv = r.kv + r.generated;
      this.running.push(r);
      any = true;
    }
    return any;
  }

  private held(): number {
    return this.running.reduce((s, r) => s + r.kv + r.generated, 0);
  }

  /** Its KV, every running request's reserve and the next iteration's tokens fit (an empty batch takes anything). */
  private fits(r: Req): boolean {
    const b = this.running.length;
    if (b === 0) return true;
    const held = this.held();
    const kv = r.kv + r.generated;
    return held + kv + this.reserve * (b + 1) <= this.cap && held + kv + (b + 1) * this.opts.tokensPerIteration <= this.cap;
  }

  /** The next iteration's tokens do not fit: the latest to enter (then most KV at entry, then highest id) goes back to the queue's front. */
  private retract(at: number): boolean {
    const back: Req[] = [];
    while (this.running.length > 1 && this.held() + this.running.length * this.opts.tokensPerIteration > this.cap) {
      const victim = this.running.reduce((v, r) => (r.enteredAt > v.enteredAt || (r.enteredAt === v.enteredAt && (r.entryKv > v.entryKv || (r.entryKv === v.entryKv && r.id > v.id))) ? r : v));
      this.running = this.running.filter((r) => r !== victim);
      victim.joinedAt = at;
      back.push(victim);
      this.retractions++;
    }
    this.pending.unshift(...back);
    return back.length > 0;
  }

  private draw(): void {
    const b = this.running.length;
    const mean = this.running.reduce((s, r) => s + r.context + r.generated, 0) / b;
    this.tau = this.opts.iterTime(b, mean);
  }
}
