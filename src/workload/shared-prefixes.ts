import { Rng } from '../common/rng.js';
import { appendTokens, copyContext, type BlockIdPool, type Context } from './blocks.js';
import { sampleInt } from './dist.js';
import type { AgentKind } from './preset-schema.js';

/**
 * Contexts that several agents start from, with the same block ids so that
 * their KV is shared: one system prompt per kind (also the start of every
 * sub-agent and of every post-compaction context), and the current task of a
 * kind whose agents come several per task (computer use).
 */
export class SharedPrefixes {
  private readonly systems = new Map<string, Context>();
  /** The current task per kind: new agents of the kind take seats in it. */
  private readonly tasks = new Map<string, TaskPrefix>();

  constructor(
    private readonly seed: number,
    private readonly pool: BlockIdPool,
  ) {}

  /** The kind's system prompt; do not mutate (copy it with copyContext). */
  system(kindName: string, kind: AgentKind): Context {
    let ctx = this.systems.get(kindName);
    if (!ctx) {
      const rng = Rng.derive(this.seed, `system/${kindName}`);
      ctx = { tokens: 0, blocks: [] };
      appendTokens(ctx, sampleInt(rng, kind.systemPromptTokens), this.pool.cursor());
      this.systems.set(kindName, ctx);
    }
    return ctx;
  }

  /**
   * The prefix a new agent of this kind starts from; takes a seat in the
   * current task (null: the kind has no task prefix). Give the seat back
   * with leave() when the agent is done.
   */
  agentBase(kindName: string, kind: AgentKind): { ctx: Context; task: TaskPrefix | null } {
    if (!kind.taskPrefixTokens) return { ctx: this.system(kindName, kind), task: null };
    let task = this.tasks.get(kindName);
    if (!task || task.used >= kind.agentsPerTask) {
      const count = (task?.count ?? 0) + 1;
      const rng = Rng.derive(this.seed, `task/${kindName}/${count}`);
      const ctx = copyContext(this.system(kindName, kind));
      const next: TaskPrefix = { ctx, used: 0, seated: 0, count, current: true, chunks: [] };
      appendTokens(ctx, sampleInt(rng, kind.taskPrefixTokens), this.pool.cursor(next.chunks));
      if (task) {
        task.current = false;
        if (task.seated === 0) this.retired.push(...task.chunks);
      }
      task = next;
      this.tasks.set(kindName, task);
    }
    task.used++;
    task.seated++;
    return { ctx: task.ctx, task };
  }

  /**
   * An agent seated in `task` is done. A task no longer handed out whose
   * agents are all done is named by nothing again: its id chunks retire.
   */
  leave(task: TaskPrefix): void {
    if (--task.seated === 0 && !task.current) this.retired.push(...task.chunks);
  }

  /** First ids of retired chunks (system prompts never retire), taken by the harness. */
  readonly retired: number[] = [];
}

export interface TaskPrefix {
  ctx: Context;
  /** Seats handed out, and agents still seated (not done). */
  used: number;
  seated: number;
  count: number;
  /** Still the kind's current task (new agents may take seats). */
  current: boolean;
  /** First ids of the chunks its ids came from. */
  chunks: number[];
}
