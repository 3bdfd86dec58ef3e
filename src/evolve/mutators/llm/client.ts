import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError, InternalServerError, RateLimitError } from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { oneLine } from '../../../common/one-line.js';
import { MutationFailed, type MutationFailureReason } from '../errors.js';
import type { LlmConfig } from './config.js';

export type ChatMessage = ChatCompletionMessageParam;

export interface ChatReply {
  text: string;
  /** The model the server says answered (falls back to the one asked for). */
  model: string;
  promptTokens: number | null;
  completionTokens: number | null;
}

export interface ChatClient {
  readonly model: string;
  /** Rejects with MutationFailed; retries (429, 5xx, timeouts) happen inside, in the openai client. */
  complete(messages: ChatMessage[], signal?: AbortSignal): Promise<ChatReply>;
}

/** Chat completions against any OpenAI-compatible server, one reply per call. */
export function createChatClient(config: LlmConfig, fetchImpl?: typeof fetch): ChatClient {
  const openai = new OpenAI({
    baseURL: config.baseURL,
    apiKey: config.apiKey,
    timeout: config.timeoutMs,
    maxRetries: config.maxRetries,
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
  });
  return {
    model: config.model,
    async complete(messages, signal) {
      let completion: unknown;
      try {
        completion = await openai.chat.completions.create({ model: config.model, messages }, { signal });
      } catch (error) {
        throw failure(error, config);
      }
      return readCompletion(completion, config.model);
    },
  };
}

/**
 * The server's answer, checked: an OpenAI-compatible server may still send
 * anything (a proxy's HTML page, a body without choices), and that is
 * 'garbage', not a crash.
 */
function readCompletion(completion: unknown, asked: string): ChatReply {
  const body = completion as { model?: unknown; choices?: unknown; usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } } | null;
  const usage = {
    model: typeof body?.model === 'string' && body.model !== '' ? body.model : asked,
    promptTokens: count(body?.usage?.prompt_tokens),
    completionTokens: count(body?.usage?.completion_tokens),
  };
  if (body === null || typeof body !== 'object' || !Array.isArray(body.choices)) {
    throw new MutationFailed('garbage', `the endpoint answered something that is not a chat completion: ${preview(completion)}`, { mutator: 'llm', cost: usage });
  }
  const message = (body.choices[0] as { message?: { content?: unknown; refusal?: unknown } } | undefined)?.message;
  const text = typeof message?.content === 'string' ? message.content : '';
  if (text.trim() === '') {
    const why = typeof message?.refusal === 'string' && message.refusal !== '' ? `the model refused: ${preview(message.refusal)}` : 'the model answered nothing';
    throw new MutationFailed('empty-answer', why, { mutator: 'llm', cost: usage });
  }
  return { text, ...usage };
}

/** openai's error classes to reasons; the subclasses first, as the timeout is also a connection error. */
function failure(error: unknown, config: LlmConfig): MutationFailed {
  const tries = config.maxRetries > 0 ? ` after ${config.maxRetries} retr${config.maxRetries === 1 ? 'y' : 'ies'}` : '';
  const where = config.baseURL;
  let reason: MutationFailureReason;
  let message: string;
  if (error instanceof APIUserAbortError) {
    reason = 'aborted';
    message = 'the request was cancelled';
  } else if (error instanceof APIConnectionTimeoutError) {
    reason = 'timeout';
    message = `no answer from ${where} within ${config.timeoutMs} ms${tries}`;
  } else if (error instanceof APIConnectionError) {
    reason = 'endpoint';
    message = `cannot reach ${where}${tries}: ${causeOf(error)}`;
  } else if (error instanceof RateLimitError) {
    reason = 'rate-limit';
    message = `${where} answered 429 (rate limited)${tries}`;
  } else if (error instanceof InternalServerError) {
    reason = 'server-error';
    message = `${where} answered ${error.status}${tries}`;
  } else if (error instanceof APIError) {
    // 400/401/403/404/422: wrong key, model or URL; retrying cannot help.
    reason = 'endpoint';
    message = `${where} refused the request: ${error.message}`;
  } else {
    // The client could not read the body (e.g. JSON declared, something else sent).
    reason = 'garbage';
    message = `unreadable answer from ${where}: ${(error as Error)?.message ?? String(error)}`;
  }
  return new MutationFailed(reason, message, { mutator: 'llm', cost: { model: config.model }, cause: error });
}

function causeOf(error: APIConnectionError): string {
  const cause = error.cause as { code?: unknown; message?: unknown; cause?: { code?: unknown; message?: unknown } } | undefined;
  const deep = cause?.cause ?? cause;
  if (typeof deep?.code === 'string') return deep.code;
  return typeof deep?.message === 'string' ? deep.message : error.message;
}

function count(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;
}

function preview(value: unknown): string {
  return oneLine(typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value)), 80);
}
