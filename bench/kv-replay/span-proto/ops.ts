/**
 * The operations a span directory would do on its two hottest structures,
 * derived from bench:sim's recorded directory calls (record.ts). Each call
 * becomes a few operations on id ranges of one node, in the order the
 * directory does them today (directory.ts: counts dropped before placing,
 * gained as placed; a D->D move releases the old node and counts the new):
 *
 * - DETACH node first len: take the range's resident blocks out of the
 *   eviction order of both tiers (an admit's prompt, before it is placed);
 * - PUSH node first len class: place the range in both tiers as the newest,
 *   block first + j keyed newest - j (a prompt is placed last block first);
 * - FIT node: evict oldest-first (count-0 queue first) until each tier is
 *   within capacity;
 * - ADD node first len delta: +1 / -1 on the node's count of every block;
 * - MOVE node first len class: the resident blocks of a range whose count
 *   just crossed 0 change class (refcount order), keeping their keys.
 *
 * The derivation keeps its own state (holdings as id lists, counts per
 * block) with plain arrays: it runs once, untimed. What it leaves out:
 * match (the prefix walk and its masks), the id -> slot lookup, the
 * holdings' diff itself, retire, clearGpu / clearNode and setEviction
 * (bench:sim's stream has none of the last three; they are rejected).
 */
import type { Call } from '../record.js';

export const DETACH = 0;
export const PUSH = 1;
export const FIT = 2;
export const ADD = 3;
export const MOVE = 4;
/** Int32 words per operation: code, node, first, len, arg (class or delta). */
export const WORDS = 5;

export class OpLog {
  data = new Int32Array(1 << 16);
  length = 0;

  push(code: number, node: number, first: number, len: number, arg: number): void {
    if (this.length + WORDS > this.data.length) {
      const bigger = new Int32Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    const d = this.data;
    const o = this.length;
    d[o] = code;
    d[o + 1] = node;
    d[o + 2] = first;
    d[o + 3] = len;
    d[o + 4] = arg;
    this.length = o + WORDS;
  }

  get ops(): Int32Array {
    return this.data.subarray(0, this.length);
  }
}

/** What executes a log: the span prototype, the per-block baseline, the naive model. */
export interface Engine {
  detach(node: number, first: number, len: number): void;
  push(node: number, first: number, len: number, cls: number): void;
  fit(node: number): void;
  add(node: number, first: number, len: number, delta: number): void;
  move(node: number, first: number, len: number, cls: number): void;
}

/** Run a log through an engine. */
export function replayOps(ops: Int32Array, e: Engine): void {
  for (let o = 0; o < ops.length; o += WORDS) {
    const node = ops[o + 1]!;
    const first = ops[o + 2]!;
    const len = ops[o + 3]!;
    const arg = ops[o + 4]!;
    switch (ops[o]) {
      case DETACH:
        e.detach(node, first, len);
        break;
      case PUSH:
        e.push(node, first, len, arg);
        break;
      case FIT:
        e.fit(node);
        break;
      case ADD:
        e.add(node, first, len, arg);
        break;
      default:
        e.move(node, first, len, arg);
    }
  }
}

/** Maximal runs of consecutive ids of a list, in list order: [first, len] pairs. */
export function idRunsOf(ids: readonly number[]): [number, number][] {
  const out: [number, number][] = [];
  for (let i = 0; i < ids.length; i++) {
    const last = out[out.length - 1];
    if (last && ids[i] === last[0] + last[1]) last[1]++;
    else out.push([ids[i]!, 1]);
  }
  return out;
}

/** The ids as ascending ranges (the order does not matter to a count). */
function rangesOf(ids: Iterable<number>): [number, number][] {
  return idRunsOf([...new Set(ids)].sort((a, b) => a - b));
}

interface Holding {
  node: number;
  ids: number[];
}

export interface Derived {
  log: OpLog;
  /** Calls translated, and skipped because the prototype leaves them out (match, retire). */
  translated: number;
  skipped: number;
  /** Repeated ids dropped from prompts (the per-block fallback a span directory would keep). */
  repeats: number;
}

/** Derive the operation log of a recorded call stream (refcount order in both tiers, as bench:sim runs). */
export function deriveOps(calls: readonly Call[], nodeCount: number): Derived {
  const log = new OpLog();
  const holdings = new Map<number, [Holding, Holding]>();
  // Counts per node, per id (grown), to find the ranges crossing 0.
  const counts: Int32Array[] = Array.from({ length: nodeCount }, () => new Int32Array(1 << 16));
  let translated = 0;
  let skipped = 0;
  let repeats = 0;

  const countOf = (node: number, id: number): number => counts[node]![id] ?? 0;
  const add = (node: number, ranges: [number, number][], delta: number, crossedClass: number): void => {
    for (const [first, len] of ranges) {
      log.push(ADD, node, first, len, delta);
      let c = counts[node]!;
      if (first + len > c.length) {
        let size = c.length;
        while (size < first + len) size *= 2;
        const bigger = new Int32Array(size);
        bigger.set(c);
        counts[node] = c = bigger;
      }
      // Ranges whose count crossed 0 change class if resident (-1: the caller knows they are detached).
      let runFirst = -1;
      for (let id = first; id < first + len; id++) {
        const before = c[id]!;
        const after = before + delta;
        if (after < 0) throw new Error(`kv-span-proto: count of block ${id} on node ${node} below 0`);
        c[id] = after;
        const crossed = (before === 0) !== (after === 0);
        if (crossed && runFirst < 0) runFirst = id;
        if (!crossed && runFirst >= 0) {
          if (crossedClass >= 0) log.push(MOVE, node, runFirst, id - runFirst, crossedClass);
          runFirst = -1;
        }
      }
      if (runFirst >= 0 && crossedClass >= 0) log.push(MOVE, node, runFirst, first + len - runFirst, crossedClass);
    }
  };
  const release = (h: Holding): void => {
    if (h.ids.length > 0) add(h.node, rangesOf(h.ids), -1, 0);
  };
  const holding = (branch: number, phase: number): Holding => {
    let hs = holdings.get(branch);
    if (!hs) holdings.set(branch, (hs = [{ node: -1, ids: [] }, { node: -1, ids: [] }]));
    return hs[phase]!;
  };
  /** Detach, then place the prompt's runs last first; the class of each placed block is its count's. */
  const place = (node: number, runs: [number, number][], counted: boolean): void => {
    for (let k = runs.length - 1; k >= 0; k--) {
      const [first, len] = runs[k]!;
      if (counted) {
        log.push(PUSH, node, first, len, 1);
        continue;
      }
      // No branch: pieces by the counts other holdings keep.
      let start = first;
      for (let id = first + 1; id <= first + len; id++) {
        if (id < first + len && countOf(node, id) > 0 === countOf(node, start) > 0) continue;
        // Deepest piece first, as it is placed first.
        log.push(PUSH, node, start, id - start, countOf(node, start) > 0 ? 1 : 0);
        start = id;
      }
    }
    log.push(FIT, node, 0, 0, 0);
  };

  for (const call of calls) {
    const [name, ...args] = call;
    if (name === 'match' || name === 'retire') {
      skipped++;
      continue;
    }
    translated++;
    if (name === 'endBranch') {
      const hs = holdings.get(args[0] as number);
      if (!hs) continue;
      holdings.delete(args[0] as number);
      for (const h of hs) release(h);
      continue;
    }
    if (name !== 'admitPrefill' && name !== 'admitDecode' && name !== 'addProduced') {
      throw new Error(`kv-span-proto: bench:sim's stream has no ${name} calls; the prototype does not model them`);
    }
    const [node, branch, raw] = args as [number, number, number[]];
    const seen = new Set<number>();
    const ids: number[] = [];
    for (const id of raw) {
      if (seen.has(id)) repeats++;
      else {
        seen.add(id);
        ids.push(id);
      }
    }
    const runs = idRunsOf(ids);
    const detach = (): void => {
      for (const [first, len] of runs) log.push(DETACH, node, first, len, 0);
    };
    if (branch === -1) {
      detach();
      place(node, runs, false);
      continue;
    }
    const h = holding(branch, name === 'admitPrefill' ? 0 : 1);
    if (name === 'addProduced') {
      detach();
      if (h.node !== node && h.ids.length > 0) {
        // D->D move: the held blocks are not in the produced list, so not detached: resident ones change class.
        release(h);
        add(node, rangesOf(h.ids), 1, 1);
        h.node = node;
      }
      const held = new Set(h.ids);
      const gained = ids.filter((id) => !held.has(id));
      add(node, rangesOf(gained), 1, -1);
      h.ids.push(...gained);
      if (h.ids.length > 0) h.node = node;
      place(node, runs, true);
      continue;
    }
    // admitPrefill / admitDecode: the holding becomes the prompt on `node`.
    let gained = ids;
    if (h.node === node) {
      const prompt = new Set(ids);
      const held = new Set(h.ids);
      add(node, rangesOf(h.ids.filter((id) => !prompt.has(id))), -1, 0);
      gained = ids.filter((id) => !held.has(id));
    } else release(h);
    detach();
    add(node, rangesOf(gained), 1, -1);
    place(node, runs, true);
    h.node = ids.length > 0 ? node : -1;
    h.ids = ids;
  }
  return { log, translated, skipped, repeats };
}
