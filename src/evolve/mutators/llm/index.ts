import { oneLine } from '../../../common/one-line.js';
import { MutationFailed, type MutationFailureReason } from '../errors.js';
import { checkPolicy } from '../policy-shape.js';
import type { MutationInput, MutationOutput, Mutator } from '../types.js';
import { extractSummary, readAnswer } from './answer.js';
import { createChatClient, type ChatClient, type ChatMessage, type ChatReply } from './client.js';
import { resolveLlmConfig, type LlmOptions } from './config.js';
import { followupPrompt, mutationPrompt, readContract, systemPrompt } from './prompt.js';
import { loadTemplates } from './templates.js';

export type { LlmOptions } from './config.js';

/**
 * The LLM mutator: one chat completion per mutation, plus one follow-up when
 * a SEARCH block matched nothing. Configuration, templates and the contract
 * are read here, at creation, so that a bad setup stops the run before
 * evolution starts (UsageError) instead of failing every candidate.
 */
export function createLlmMutator(options: LlmOptions = {}): Mutator {
  const config = resolveLlmConfig(options);
  const templates = loadTemplates(options.templatesDir);
  const system = systemPrompt(templates, readContract());
  const client = createChatClient(config, options.fetch);
  return {
    name: 'llm',
    async mutate(input: MutationInput, signal?: AbortSignal): Promise<MutationOutput> {
      const tally = new Tally(config.model);
      const messages: ChatMessage[] = [
        { role: 'system', content: system },
        { role: 'user', content: mutationPrompt(templates, input) },
      ];
      let reply = await tally.ask(client, messages, signal);
      let answer = readAnswer(input.parent.code, reply.text);
      let followedUp = false;
      if (answer.kind === 'mismatch') {
        // Once more, with the reason: most mismatches are a misremembered line or indentation.
        messages.push({ role: 'assistant', content: reply.text }, { role: 'user', content: followupPrompt(templates, answer.error) });
        reply = await tally.ask(client, messages, signal);
        answer = readAnswer(input.parent.code, reply.text);
        followedUp = true;
        if (answer.kind === 'mismatch') throw tally.fail('search-mismatch', `block ${answer.error.block} still fails after the follow-up: ${answer.error.reason}`);
      }
      if (answer.kind === 'garbage') throw tally.fail('garbage', `the answer has neither SEARCH/REPLACE blocks nor a fenced file: ${preview(reply.text)}`);
      const check = checkPolicy(answer.code);
      if (!check.ok) throw tally.fail('parse', `the edited policy ${check.message}`);
      if (answer.code === input.parent.code) throw tally.fail('no-edit', 'the edits leave the parent unchanged');
      const strategy = extractSummary(reply.text) ?? 'unsummarised edit';
      return {
        code: answer.code,
        editSummary: `${strategy} (llm: ${answer.how}${followedUp ? ', after a follow-up' : ''})`,
        ...tally.cost(),
        mutator: 'llm',
      };
    },
  };
}

/**
 * Tokens and model over the requests of one mutation, so that a mutation that
 * fails on its second request still reports what the first one cost.
 */
class Tally {
  private model: string;
  private promptTokens: number | null = null;
  private completionTokens: number | null = null;

  constructor(model: string) {
    this.model = model;
  }

  async ask(client: ChatClient, messages: ChatMessage[], signal: AbortSignal | undefined): Promise<ChatReply> {
    try {
      const reply = await client.complete(messages, signal);
      this.add(reply);
      return reply;
    } catch (error) {
      if (!(error instanceof MutationFailed)) throw error;
      this.add({ model: error.cost.model ?? this.model, promptTokens: error.cost.promptTokens, completionTokens: error.cost.completionTokens });
      throw this.fail(error.reason, error.detail, error.cause ?? error);
    }
  }

  fail(reason: MutationFailureReason, message: string, cause?: unknown): MutationFailed {
    return new MutationFailed(reason, message, { mutator: 'llm', cost: this.cost(), cause });
  }

  cost(): { model: string; promptTokens: number | null; completionTokens: number | null } {
    return { model: this.model, promptTokens: this.promptTokens, completionTokens: this.completionTokens };
  }

  private add(reply: { model: string; promptTokens: number | null; completionTokens: number | null }): void {
    this.model = reply.model;
    if (reply.promptTokens !== null) this.promptTokens = (this.promptTokens ?? 0) + reply.promptTokens;
    if (reply.completionTokens !== null) this.completionTokens = (this.completionTokens ?? 0) + reply.completionTokens;
  }
}

function preview(text: string): string {
  return oneLine(text, 80);
}
