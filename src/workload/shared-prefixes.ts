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
  private readonly tasks = new Map<string, { ctx: Context; used: number; count: number }>();

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

  /** The prefix a new agent of this kind starts from; takes a seat in the current task. */
  agentBase(kindName: string, kind: AgentKind): Context {
    if (!kind.taskPrefixTokens) return this.system(kindName, kind);
    let task = this.tasks.get(kindName);
    if (!task || task.used >= kind.agentsPerTask) {
      const count = (task?.count ?? 0) + 1;
      const rng = Rng.derive(this.seed, `task/${kindName}/${count}`);
      const ctx = copyContext(this.system(kindName, kind));
      appendTokens(ctx, sampleInt(rng, kind.taskPrefixTokens), this.pool.cursor());
      task = { ctx, used: 0, count };
      this.tasks.set(kindName, task);
    }
    task.used++;
    return task.ctx;
  }
}
