/**
 * GPU KV admission and retraction of one decode node (mechanics
 * `decodeKv: 'gpu'`): the arithmetic DecodeBatch uses, kept here so that both
 * of its call sites (when the next change is, what happens at it) decide alike.
 *
 * Source: SGLang's PD decode server admits a transferred request only when
 * its KV plus `num_reserved_decode_tokens` (512) fits in the node's KV pool
 * (`max_total_num_tokens`; python/sglang/srt/disaggregation/decode.py,
 * DecodePreallocQueue.pop_preallocated), and when a decode step finds no room
 * for the running requests' next tokens it retracts requests, fewest output
 * tokens first and, among those, longest prompt first, never the last one
 * (python/sglang/srt/managers/schedule_batch.py, ScheduleBatch.retract_decode);
 * a retracted request waits in the decode server's retracted queue and resumes
 * ahead of new admissions once it fits again (DecodePreallocQueue
 * .resume_retracted_reqs). vLLM preempts the same way (by recompute or swap).
 *
 * Model: a running request holds its prompt's KV (tokens at admission) plus
 * t_acc tokens per iteration done. The iteration starting at boundary I needs
 * room for the next t_acc tokens of each of the B running requests:
 * U(I + 1) <= capacity with U(I) = sumKv + t_acc * (B * I - sumStartIter).
 */
export class DecodeKvBudget {
  constructor(
    /** GPU KV tokens of the node; Infinity: unbounded (only maxBatch caps the batch). */
    readonly capacity: number,
    /** Tokens held back per running request when admitting one. */
    readonly reserve: number,
    private readonly tAcc: number,
  ) {
    if (!(capacity > 0)) throw new RangeError(`kvCapacityTokens must be positive, got ${capacity}`);
    if (!(reserve >= 0) || !Number.isFinite(reserve)) throw new RangeError(`kvReserveTokens must be >= 0, got ${reserve}`);
  }

  get bounded(): boolean {
    return Number.isFinite(this.capacity);
  }

  /** KV tokens b running requests hold at global boundary `index`. */
  used(sumKv: number, sumStartIter: number, b: number, index: number): number {
    return sumKv + this.tAcc * (b * index - sumStartIter);
  }

  /**
   * Global index of the first boundary whose iteration does not fit, i.e. the
   * smallest I with U(I + 1) > capacity; Infinity when unbounded or with fewer
   * than 2 running (the last request is never retracted).
   */
  overflowIndex(sumKv: number, sumStartIter: number, b: number): number {
    if (!this.bounded || b < 2) return Infinity;
    return Math.floor(((this.capacity - sumKv) / this.tAcc + sumStartIter) / b);
  }

  /**
   * Whether a request holding `kv` tokens may enter at boundary `index` next
   * to b running: its KV and every running request's reserve fit, and the
   * batch it makes does not overflow at once. An empty batch takes anything.
   */
  fits(kv: number, sumKv: number, sumStartIter: number, b: number, index: number): boolean {
    if (!this.bounded || b === 0) return true;
    if (this.used(sumKv, sumStartIter, b, index) + kv + this.reserve * (b + 1) > this.capacity) return false;
    return this.overflowIndex(sumKv + kv, sumStartIter + index, b + 1) > index;
  }
}

/** SGLang's default `num_reserved_decode_tokens` (DEFAULT_RESERVED_DECODE_TOKENS, disaggregation/decode.py). */
export const DECODE_KV_RESERVE_TOKENS = 512;
