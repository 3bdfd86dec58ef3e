import { InputError } from '../common/errors.js';
import { BLOCK_TOKENS, countBlocks } from './blocks.js';
import type { Trace, TraceEvent } from './trace-schema.js';

interface BranchState {
  agent: number;
  version: number;
  ended: boolean;
}

/**
 * The rules a well-formed trace keeps beyond each line's shape: branches and
 * requests are defined before they are used, versions follow compactions,
 * token counts agree with block counts. Fed one event at a time, so that
 * errors name the line.
 */
export class TraceChecker {
  private readonly agents = new Set<number>();
  private readonly replaced = new Set<number>();
  private readonly branches = new Map<number, BranchState>();
  /** Request id -> its branch (-1 when it has none). */
  private readonly requests = new Map<number, number>();

  constructor(private readonly file: string) {}

  check(e: TraceEvent, line: number): void {
    const fail = (field: string, message: string): never => {
      throw new InputError(message, { file: this.file, line, field });
    };
    switch (e.type) {
      case 'agent':
        if (this.agents.has(e.agent)) fail('agent', `agent ${e.agent} is already defined`);
        if (this.branches.has(e.branch)) fail('branch', `branch ${e.branch} is already defined`);
        if (e.replaces !== undefined) {
          if (!this.agents.has(e.replaces)) fail('replaces', `agent ${e.replaces} is unknown or defined later`);
          if (this.replaced.has(e.replaces)) fail('replaces', `agent ${e.replaces} is already replaced`);
          this.replaced.add(e.replaces);
        }
        this.agents.add(e.agent);
        this.branches.set(e.branch, { agent: e.agent, version: 0, ended: false });
        return;
      case 'fork':
      case 'subagent': {
        if (this.branches.has(e.branch)) fail('branch', `branch ${e.branch} is already defined`);
        const parent = this.live(e.parent, 'parent', fail);
        if (!this.agents.has(e.agent)) fail('agent', `unknown agent ${e.agent}`);
        if (parent.agent !== e.agent) fail('agent', `parent branch ${e.parent} belongs to agent ${parent.agent}, not ${e.agent}`);
        this.branches.set(e.branch, { agent: e.agent, version: 0, ended: false });
        return;
      }
      case 'request': {
        if (this.requests.has(e.id)) fail('id', `request ${e.id} is already defined`);
        e.after.forEach((a, i) => {
          if (!this.requests.has(a)) fail(`after.${i}`, `request ${a} is unknown or defined later`);
        });
        if (e.branch !== undefined) {
          const b = this.live(e.branch, 'branch', fail);
          if (e.agent === undefined) fail('agent', `a request on branch ${e.branch} needs its agent`);
          if (b.agent !== e.agent) fail('agent', `branch ${e.branch} belongs to agent ${b.agent}, not ${e.agent}`);
          if (e.version !== b.version) fail('version', `branch ${e.branch} is at version ${b.version}, not ${e.version}`);
        }
        const blocks = countBlocks(e.blocks);
        if (e.input < blocks * BLOCK_TOKENS) fail('input', `${e.input} tokens cannot fill ${blocks} blocks of ${BLOCK_TOKENS}`);
        const full = Math.floor((e.input + e.output) / BLOCK_TOKENS);
        if (blocks + countBlocks(e.produced) > full) fail('produced', `${blocks} + ${countBlocks(e.produced)} blocks exceed the ${full} full blocks of input + output`);
        this.requests.set(e.id, e.branch ?? -1);
        return;
      }
      case 'compact': {
        const b = this.live(e.branch, 'branch', fail);
        if (e.version !== b.version + 1) fail('version', `branch ${e.branch} is at version ${b.version}; compaction must bring it to ${b.version + 1}`);
        b.version = e.version;
        return;
      }
      case 'end': {
        const b = this.live(e.branch, 'branch', fail);
        if (!this.requests.has(e.after)) fail('after', `request ${e.after} is unknown or defined later`);
        if (this.requests.get(e.after) !== e.branch) fail('after', `request ${e.after} is not on branch ${e.branch}`);
        b.ended = true;
        return;
      }
    }
  }

  private live(branch: number, field: string, fail: (field: string, message: string) => never): BranchState {
    const b = this.branches.get(branch);
    if (!b) return fail(field, `unknown branch ${branch}`);
    if (b.ended) return fail(field, `branch ${branch} has already ended`);
    return b;
  }
}

/** Check a trace built in memory; lines are numbered as if written (header on line 1). */
export function validateTrace(trace: Trace, file = 'trace'): void {
  const checker = new TraceChecker(file);
  trace.events.forEach((e, i) => checker.check(e, i + 2));
}
