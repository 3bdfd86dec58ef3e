import { describe, expect, it } from 'vitest';
import {
  BLOCK_TOKENS,
  createPresetSource,
  generateTrace,
  loadWorkloadPreset,
  runNominal,
  validateTrace,
  type SimRequest,
  type WorkloadEvent,
  type WorkloadPreset,
} from '../../src/workload/index.js';
import { byBranch, commonPrefix, eventsOfType, ids, requestsOf, startsWith } from './helpers.js';

const cc = loadWorkloadPreset('cc');

function record(preset: WorkloadPreset, seed: number, horizon: number, agents?: number): unknown[] {
  const log: unknown[] = [];
  const source = createPresetSource(preset, { seed, agents });
  const wrap = (when: string, events: WorkloadEvent[]): WorkloadEvent[] => {
    log.push([when, events]);
    return events;
  };
  runNominal({
    name: source.name,
    model: source.model,
    start: () => wrap('start', source.start()),
    onComplete: (id, now) => wrap(`complete ${id} ${now}`, source.onComplete(id, now)),
    onWake: (token, now) => wrap(`wake ${token} ${now}`, source.onWake(token, now)),
  }, horizon);
  return log;
}

describe('preset harness source', () => {
  it('is deterministic for a seed', () => {
    const a = record(cc, 7, 900, 12);
    const b = record(cc, 7, 900, 12);
    expect(a.length).toBeGreaterThan(50);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(JSON.stringify(record(cc, 8, 900, 12))).not.toBe(JSON.stringify(a));
  });

  it('numbers requests densely from 0 in emission order and never emits into the past', () => {
    const source = createPresetSource(cc, { seed: 3, agents: 10 });
    let next = 0;
    const check = (events: WorkloadEvent[], now: number): WorkloadEvent[] => {
      for (const e of events) {
        expect(e.at).toBeGreaterThanOrEqual(now);
        if (e.kind === 'request') expect(e.request.id).toBe(next++);
      }
      return events;
    };
    runNominal(
      {
        ...source,
        start: () => check(source.start(), 0),
        onComplete: (id, now) => check(source.onComplete(id, now), now),
        onWake: (token, now) => check(source.onWake(token, now), now),
      },
      1800,
    );
    expect(next).toBeGreaterThan(100);
  });

  it('chains block ids: the next call on a branch extends the previous blocks and produced blocks', () => {
    const trace = generateTrace(cc, { seed: 11, agents: 20, minutes: 120 });
    validateTrace(trace);
    let checked = 0;
    let compactions = 0;
    for (const list of byBranch(trace).values()) {
      for (let i = 1; i < list.length; i++) {
        const prev = list[i - 1]!;
        const cur = list[i]!;
        const prevAll = [...ids(prev.blocks), ...ids(prev.produced)];
        const blocks = ids(cur.blocks);
        expect(blocks.length * BLOCK_TOKENS).toBeLessThanOrEqual(cur.input);
        expect(Math.floor(cur.input / BLOCK_TOKENS)).toBe(blocks.length);
        if (cur.version === prev.version) {
          expect(startsWith(blocks, prevAll)).toBe(true);
          expect(cur.input).toBeGreaterThanOrEqual(prev.input + prev.output);
          checked++;
        } else {
          // Compaction: version +1, the context shrinks (cc keeps ~96K tokens after the system prompt, compacting
          // near 245K; the kept size is log-normal, so a few compactions keep much more), only the system prompt is reused.
          // (With seed 11 one of the ~150 compactions draws 241K kept tokens, a 1-in-600 draw: the cap keeps it below.)
          expect(cur.version).toBe(prev.version + 1);
          expect(blocks.length).toBeLessThan(prevAll.length);
          expect(commonPrefix(blocks, prevAll)).toBe(Math.floor(cc.kinds.cc!.systemPromptTokens.mean / BLOCK_TOKENS));
          compactions++;
        }
      }
    }
    expect(checked).toBeGreaterThan(1000);
    expect(compactions).toBeGreaterThan(0);
    // Every compaction shows as a version change, except those after which the branch made no call in the
    // trace (it ended, or the trace did).
    const branches = byBranch(trace);
    const withoutNextCall = eventsOfType(trace, 'compact').filter((c) => !(branches.get(c.branch) ?? []).some((r) => r.version === c.version)).length;
    expect(compactions + withoutNextCall).toBe(eventsOfType(trace, 'compact').length);
  });

  it('gives block ids that identify their prefix (same id, same prefix)', () => {
    const trace = generateTrace(cc, { seed: 5, agents: 6, minutes: 40 });
    const prefixOf = new Map<number, number>();
    let conflicts = 0;
    for (const r of requestsOf(trace)) {
      const all = ids(r.blocks).concat(ids(r.produced));
      // The predecessor of each block is part of its identity (-1: first block).
      for (let i = 0; i < all.length; i++) {
        const before = i === 0 ? -1 : all[i - 1]!;
        const known = prefixOf.get(all[i]!);
        if (known === undefined) prefixOf.set(all[i]!, before);
        else if (known !== before) conflicts++;
      }
    }
    expect(conflicts).toBe(0);
    expect(prefixOf.size).toBeGreaterThan(1000);
  });

  it('forks share the parent prefix; sub-agents start fresh with only the system prompt', () => {
    const trace = generateTrace(cc, { seed: 2, agents: 30, minutes: 120 });
    const branches = byBranch(trace);
    const reqById = new Map(requestsOf(trace).map((r) => [r.id, r]));
    const forks = eventsOfType(trace, 'fork');
    const subs = eventsOfType(trace, 'subagent');
    expect(forks.length).toBeGreaterThan(0);
    expect(subs.length).toBeGreaterThan(0);
    const system = Math.floor(cc.kinds.cc!.systemPromptTokens.mean / BLOCK_TOKENS);
    for (const f of forks) {
      const first = branches.get(f.branch)?.[0];
      if (!first) continue;
      const parentCall = reqById.get(first.after[0]!)!;
      expect(parentCall.branch).toBe(f.parent);
      expect(startsWith(ids(first.blocks), [...ids(parentCall.blocks), ...ids(parentCall.produced)])).toBe(true);
      expect(first.version).toBe(0);
    }
    for (const s of subs) {
      const first = branches.get(s.branch)?.[0];
      if (!first) continue;
      const parentCall = reqById.get(first.after[0]!)!;
      expect(parentCall.branch).toBe(s.parent);
      const parentAll = [...ids(parentCall.blocks), ...ids(parentCall.produced)];
      expect(commonPrefix(ids(first.blocks), parentAll)).toBe(system);
      const parentSet = new Set(parentAll.slice(system));
      expect(ids(first.blocks).some((b) => parentSet.has(b))).toBe(false);
    }
  });

  it('parks the parent while its sub-agents run and resumes after the last one ends', () => {
    const trace = generateTrace(cc, { seed: 4, agents: 30, minutes: 120 });
    const branches = byBranch(trace);
    const ends = new Map(eventsOfType(trace, 'end').map((e) => [e.branch, e]));
    const bySpawnCall = new Map<number, number[]>();
    for (const s of eventsOfType(trace, 'subagent')) {
      const first = branches.get(s.branch)?.[0];
      if (!first) continue; // started after the end of the trace
      const list = bySpawnCall.get(first.after[0]!) ?? [];
      list.push(s.branch);
      bySpawnCall.set(first.after[0]!, list);
    }
    let resumed = 0;
    for (const [spawnCall, children] of bySpawnCall) {
      if (!children.every((c) => ends.has(c))) continue;
      const parentBranch = eventsOfType(trace, 'subagent').find((s) => s.branch === children[0])!.parent;
      const parentCalls = branches.get(parentBranch)!;
      const i = parentCalls.findIndex((r) => r.id === spawnCall);
      const resume = parentCalls[i + 1];
      if (!resume) continue;
      const lastEnd = Math.max(...children.map((c) => ends.get(c)!.t));
      expect(resume.after.sort((a, b) => a - b)).toEqual(children.map((c) => ends.get(c)!.after).sort((a, b) => a - b));
      expect(resume.t).toBeCloseTo(lastEnd + resume.wait, 5);
      // Only the sub-agents' results are new: the parent's context is still cached.
      expect(startsWith(ids(resume.blocks), [...ids(parentCalls[i]!.blocks), ...ids(parentCalls[i]!.produced)])).toBe(true);
      resumed++;
    }
    expect(resumed).toBeGreaterThan(0);
  });

  it('emits branch-end when the last call of a branch completes', () => {
    const source = createPresetSource(loadWorkloadPreset('putnam'), { seed: 1, agents: 5 });
    const lastCall = new Map<number, number>();
    const completedAt = new Map<number, number>();
    const ended: [number, number][] = [];
    runNominal(source, 3600, {
      onArrive: (r) => lastCall.set(r.branch, r.id),
      onCompleteRequest: (r, t) => completedAt.set(r.id, t),
      onBranchEnd: (b, t) => ended.push([b, t]),
    });
    expect(ended.length).toBeGreaterThan(5);
    for (const [branch, t] of ended) expect(completedAt.get(lastCall.get(branch)!)).toBe(t);
  });

  it('keeps N agents running in closed loop', () => {
    const n = 15;
    const putnam = loadWorkloadPreset('putnam');
    const trace = generateTrace(putnam, { seed: 9, agents: n, minutes: 120 });
    const agentOf = new Map<number, number>();
    const branchesLeft = new Map<number, number>();
    const starts: number[] = [];
    for (const e of trace.events) {
      if (e.type === 'agent') starts.push(e.t);
      if (e.type === 'agent' || e.type === 'fork' || e.type === 'subagent') {
        agentOf.set(e.branch, e.agent);
        branchesLeft.set(e.agent, (branchesLeft.get(e.agent) ?? 0) + 1);
      }
    }
    const finishes: number[] = [];
    for (const e of eventsOfType(trace, 'end')) {
      const agent = agentOf.get(e.branch)!;
      const left = branchesLeft.get(agent)! - 1;
      branchesLeft.set(agent, left);
      if (left === 0) finishes.push(e.t);
    }
    expect(finishes.length).toBeGreaterThan(n);
    const ramp = putnam.loop.mode === 'closed' ? putnam.loop.rampSeconds : 0;
    for (let t = ramp + 1; t < 7200; t += 97) {
      const started = starts.filter((s) => s <= t).length;
      const finished = finishes.filter((f) => f <= t).length;
      expect(started - finished).toBe(n);
    }
  });

  it('starts agents as a Poisson process in open loop', () => {
    const source = createPresetSource(loadWorkloadPreset('putnam'), { seed: 1, arrivalRate: 0.2 });
    const start = source.start();
    expect(start).toHaveLength(1);
    expect(start[0]!.kind).toBe('wake');
    const agents = new Set<number>();
    runNominal(source, 3600, { onArrive: (r) => agents.add(r.agent) });
    // 0.2 agents per second for an hour: about 720.
    expect(agents.size).toBeGreaterThan(620);
    expect(agents.size).toBeLessThan(820);
    expect(() => createPresetSource(cc, { seed: 1, agents: 3, arrivalRate: 1 })).toThrow(/not both/);
  });

  it('draws agent kinds from the phase active when they start (shifting)', () => {
    const trace = generateTrace(loadWorkloadPreset('shifting'), { seed: 1, agents: 40, minutes: 180 });
    const kinds = eventsOfType(trace, 'agent');
    const share = (from: number, to: number): number => {
      const inside = kinds.filter((a) => a.t >= from && a.t < to);
      return inside.filter((a) => a.kind === 'osworld').length / inside.length;
    };
    expect(share(0, 3600)).toBe(0);
    expect(share(3600, 7200)).toBeGreaterThan(0.3);
    expect(share(3600, 7200)).toBeLessThan(0.7);
    expect(share(7200, 10800)).toBe(1);
  });

  it('shares the task prefix between the agents of one osworld task', () => {
    const trace = generateTrace(loadWorkloadPreset('osworld'), { seed: 1, agents: 8, minutes: 5 });
    // An agent whose setup outlasts the trace has no request in it (osworld agents restore a VM first).
    const firsts = eventsOfType(trace, 'agent')
      .map((a) => requestsOf(trace).find((r) => r.branch === a.branch && r.after.length === 0))
      .filter((r) => r !== undefined);
    expect(firsts.length).toBeGreaterThanOrEqual(5);
    const system = Math.floor(3000 / BLOCK_TOKENS);
    const a = ids(firsts[0]!.blocks);
    const shared = firsts.slice(1).map((r) => commonPrefix(a, ids(r.blocks)));
    // Agents 1-3 share the first task (beyond the system prompt); agent 4 starts a new task.
    expect(shared[0]!).toBeGreaterThan(system);
    expect(shared[2]!).toBeGreaterThan(system);
    expect(shared[3]!).toBe(system);
  });

  it('scales: 30k cc requests of about 200 blocks, each source call a bounded amount of work', () => {
    // How fast the source is belongs to bench:sim (which includes it); here, that its work
    // per call does not grow with the run: every completion or wake emits a handful of events.
    const source = createPresetSource(cc, { seed: 1 });
    let requests = 0;
    let blocks = 0;
    let calls = 0;
    let mostPerCall = 0;
    const counted = <T extends unknown[]>(events: T): T => {
      calls++;
      mostPerCall = Math.max(mostPerCall, events.length);
      return events;
    };
    let started = 0;
    const wrapped: typeof source = {
      ...source,
      start: () => {
        const events = source.start();
        started = events.length;
        return events;
      },
      onComplete: (id, now) => counted(source.onComplete(id, now)),
      onWake: (t, now) => counted(source.onWake(t, now)),
    };
    runNominal(wrapped, 4800, {
      onArrive: (r: SimRequest) => {
        requests++;
        blocks += r.blocks.length;
      },
    });
    expect(requests).toBeGreaterThan(25_000);
    expect(blocks / requests).toBeGreaterThan(120);
    expect(started).toBeGreaterThan(0);
    // About one call per request, none emitting more than a few events.
    expect(calls).toBeGreaterThan(requests * 0.9);
    expect(calls).toBeLessThan(requests * 1.1);
    expect(mostPerCall).toBeLessThanOrEqual(8);
  });
});
