import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for an OpenAI-compatible server: node:http on 127.0.0.1, a free
 * port, POST /v1/chat/completions answered from a queue of scripted replies,
 * every request recorded. Tests drive the real `openai` client against it
 * over real HTTP. The replies the tests queue are hand-written, not produced
 * by any model.
 */
export type StubReply =
  /** A chat completion whose message content is `content`. */
  | { chat: string | null; usage?: { prompt_tokens: number; completion_tokens: number }; model?: string }
  /** An error status with an OpenAI-style error body. */
  | { status: number; headers?: Record<string, string>; message?: string }
  /** Any body with any content type (a proxy's page, broken JSON). */
  | { raw: string; contentType: string; status?: number }
  /** Never answer: the client's timeout has to fire. */
  | { hang: true };

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: { model?: string; messages?: { role: string; content: string }[] } & Record<string, unknown>;
}

export class StubServer {
  readonly requests: RecordedRequest[] = [];
  private readonly queue: StubReply[] = [];
  private readonly hung: ServerResponse[] = [];

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(): Promise<StubServer> {
    let stub: StubServer | undefined;
    const server = createServer((req, res) => void stub!.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    stub = new StubServer(server, (server.address() as AddressInfo).port);
    return stub;
  }

  get baseURL(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  /** Replies for the next requests, in order. */
  enqueue(...replies: StubReply[]): this {
    this.queue.push(...replies);
    return this;
  }

  /** The messages of the n-th recorded request. */
  messages(n: number): { role: string; content: string }[] {
    return this.requests[n]?.body.messages ?? [];
  }

  async stop(): Promise<void> {
    for (const res of this.hung) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: RecordedRequest['body'] = {};
    try {
      body = text === '' ? {} : JSON.parse(text);
    } catch {
      body = { unparsed: text };
    }
    this.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') return this.json(res, 404, { error: { message: `stub: no route ${req.method} ${req.url}` } });
    const reply = this.queue.shift();
    // Not retryable, so that a test that queued too little fails fast and visibly.
    if (!reply) return this.json(res, 500, { error: { message: 'stub: no reply queued' } }, { 'x-should-retry': 'false' });
    if ('hang' in reply) {
      this.hung.push(res);
      return;
    }
    if ('raw' in reply) {
      res.writeHead(reply.status ?? 200, { 'content-type': reply.contentType });
      res.end(reply.raw);
      return;
    }
    if ('status' in reply) return this.json(res, reply.status, { error: { message: reply.message ?? `stub: status ${reply.status}`, type: 'stub' } }, reply.headers);
    this.json(res, 200, {
      id: `chatcmpl-stub-${this.requests.length}`,
      object: 'chat.completion',
      created: 0,
      model: reply.model ?? body.model ?? 'stub-model',
      choices: [{ index: 0, message: { role: 'assistant', content: reply.chat }, finish_reason: 'stop' }],
      ...(reply.usage ? { usage: { ...reply.usage, total_tokens: reply.usage.prompt_tokens + reply.usage.completion_tokens } } : {}),
    });
  }

  private json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  }
}
