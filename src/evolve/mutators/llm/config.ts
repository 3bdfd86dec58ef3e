import { UsageError } from '../../../common/errors.js';

export interface LlmOptions {
  /** OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1; default OPENAI_BASE_URL. */
  baseURL?: string;
  /** Default OPENAI_API_KEY. Local servers that want none get a placeholder. */
  apiKey?: string;
  /** Default AUTOPOIESIS_MODEL. */
  model?: string;
  /** Per request, in ms (default 120000). */
  timeoutMs?: number;
  /** Retries of a request on 408/409/429/5xx, timeouts and connection errors (default 2). */
  maxRetries?: number;
  /** A folder whose system.md / mutation.md / followup.md replace the shipped ones. */
  templatesDir?: string;
  /** A fetch implementation for the openai client (tests, proxies). */
  fetch?: typeof fetch;
  /** Where the defaults are read from (default process.env). */
  env?: Record<string, string | undefined>;
}

export interface LlmConfig {
  baseURL: string;
  apiKey: string;
  model: string;
  timeoutMs: number;
  maxRetries: number;
}

const OPENAI_URL = 'https://api.openai.com/v1';
/** What a server that checks no key is sent; the openai client refuses to start without one. */
const NO_KEY = 'none';

/**
 * Flags win over the environment. An endpoint is configured when a base URL
 * or an API key is given (a key alone means OpenAI itself); with neither, or
 * without a model, the run stops at once rather than failing every mutation.
 */
export function resolveLlmConfig(options: LlmOptions): LlmConfig {
  const env = options.env ?? process.env;
  const baseURL = nonEmpty(options.baseURL) ?? nonEmpty(env.OPENAI_BASE_URL);
  const apiKey = nonEmpty(options.apiKey) ?? nonEmpty(env.OPENAI_API_KEY);
  if (baseURL === undefined && apiKey === undefined) {
    throw new UsageError('--mutator llm needs an endpoint: set OPENAI_BASE_URL (and OPENAI_API_KEY if it wants one) or pass --base-url');
  }
  if (baseURL !== undefined && !isHttpUrl(baseURL)) throw new UsageError(`--base-url / OPENAI_BASE_URL '${baseURL}' is not an http(s) URL`);
  const model = nonEmpty(options.model) ?? nonEmpty(env.AUTOPOIESIS_MODEL);
  if (model === undefined) throw new UsageError('--mutator llm needs a model: set AUTOPOIESIS_MODEL or pass --model');
  const timeoutMs = options.timeoutMs ?? 120_000;
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) throw new UsageError(`LLM request timeout must be a positive whole number of ms, got ${timeoutMs}`);
  const maxRetries = options.maxRetries ?? 2;
  if (!Number.isInteger(maxRetries) || maxRetries < 0) throw new UsageError(`LLM retry count must be a whole number >= 0, got ${maxRetries}`);
  return { baseURL: baseURL ?? OPENAI_URL, apiKey: apiKey ?? NO_KEY, model, timeoutMs, maxRetries };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
