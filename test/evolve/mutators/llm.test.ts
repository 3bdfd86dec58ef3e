import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/common/errors.js';
import { createLlmMutator, MutationFailed, type Mutator } from '../../../src/evolve/mutators/index.js';
import { input, TINY } from './fixtures.js';
import { StubServer } from './stub-server.js';

// Every canned model answer below is hand-written for these tests.

/** Hand-written: a good SEARCH/REPLACE answer against TINY. */
const GOOD_EDIT = `SUMMARY: hold 90 s instead of 120 s after a reschedule

<<<<<<< SEARCH
const HOLD = 120;
=======
const HOLD = 90;
>>>>>>> REPLACE
`;

/** Hand-written: a SEARCH that is not in TINY (the model misremembers the constant). */
const BAD_EDIT = `SUMMARY: hold longer

<<<<<<< SEARCH
const HOLD_SECONDS = 120;
=======
const HOLD_SECONDS = 240;
>>>>>>> REPLACE
`;

/** Hand-written: a whole new file in one fence. */
const WHOLE_FILE = `SUMMARY: replan only on membership changes

Here is the new policy:

\`\`\`js
// always-hold: replans only when a node goes down or comes up.
function shouldReschedule(ctx) {
  return ctx.membership.length > 0;
}

function schedule(ctx) {
  return { roles: splitToRoles(Math.floor(ctx.nodes.length / 2), ctx.nodes) };
}
\`\`\`
`;

const USAGE = { prompt_tokens: 1200, completion_tokens: 80 };
const FAST = { retry: { 'retry-after': '0' } };

let stub: StubServer;
beforeEach(async () => {
  stub = await StubServer.start();
});
afterEach(async () => {
  await stub.stop();
});

function mutator(options: { timeoutMs?: number; maxRetries?: number; templatesDir?: string } = {}): Mutator {
  return createLlmMutator({ baseURL: stub.baseURL, apiKey: 'test-key', model: 'stub-model', maxRetries: 2, timeoutMs: 5000, env: {}, ...options });
}

async function failure(promise: Promise<unknown>): Promise<MutationFailed> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MutationFailed);
  return error as MutationFailed;
}

const breakdown = { reschedules: 7, schedSeconds: 0.125, staleSeconds: 3.5, reconfigSeconds: 41.25, serveSeconds: 900.5, makespanSeconds: 945.25 };

describe('llm mutator against a stub OpenAI-compatible server', () => {
  it('applies a good SEARCH/REPLACE answer and records model and tokens', async () => {
    stub.enqueue({ chat: GOOD_EDIT, usage: USAGE, model: 'stub-model-2025' });
    const out = await mutator().mutate(input(TINY, 1));
    expect(out.code).toBe(TINY.replace('const HOLD = 120;', 'const HOLD = 90;'));
    expect(out).toMatchObject({
      editSummary: 'hold 90 s instead of 120 s after a reschedule (llm: 1 SEARCH/REPLACE block)',
      model: 'stub-model-2025',
      promptTokens: 1200,
      completionTokens: 80,
      mutator: 'llm',
    });
    expect(stub.requests).toHaveLength(1);
    expect(stub.requests[0]!.headers.authorization).toBe('Bearer test-key');
    expect(stub.requests[0]!.body.model).toBe('stub-model');
  });

  it('sends the execution model, the contract, the parent code and breakdown, children, inspirations, best and strategies', async () => {
    stub.enqueue({ chat: GOOD_EDIT, usage: USAGE });
    await mutator().mutate(
      input(TINY, 1, {
        parent: { id: 41, code: TINY, fitness: 949.5, breakdown },
        children: [
          { id: 42, editSummary: 'flip > to >= in shouldReschedule (line 22)', fitness: 960.25, breakdown: { ...breakdown, reschedules: 12, reconfigSeconds: 60 } },
          { id: 43, editSummary: 'drop statement in helper pick (line 13)', fitness: null, failure: 'invalid-plan: 0 prefill nodes' },
        ],
        inspirations: [{ id: 17, code: 'function shouldReschedule(ctx) { return false; }\nfunction schedule(ctx) { return ctx.plan; }\n', fitness: 930, breakdown }],
        best: { id: 9, code: '// the best one\nfunction shouldReschedule(ctx) { return false; }\nfunction schedule(ctx) { return ctx.plan; }\n', fitness: 920.5 },
        recentStrategies: ['hold 60 s after a reschedule', 'require a 5 % predicted gain'],
      }),
    );
    const [system, user] = stub.messages(0);
    expect(system!.role).toBe('system');
    expect(system!.content).toContain('T_total = sum over intervals of ( t_sched + t_stale + t_reconfig + t_serve )');
    expect(system!.content).toContain('# Writing a serving policy (contract version 2)');
    expect(system!.content).toContain('<<<<<<< SEARCH');
    expect(user!.role).toBe('user');
    expect(user!.content).toContain('candidate #41, fitness 949.5 s');
    expect(user!.content).toContain(TINY);
    expect(user!.content).toContain('- reconfigSeconds: 41.25');
    expect(user!.content).toContain('- #42: flip > to >= in shouldReschedule (line 22)');
    expect(user!.content).toContain('fitness: 960.25 s (parent 949.5 s, +10.75)');
    expect(user!.content).toContain('- staleSeconds: 3.5 (same as parent)');
    expect(user!.content).toContain('- reschedules: 12 (parent 7, +5)');
    expect(user!.content).toContain('failed: invalid-plan: 0 prefill nodes');
    expect(user!.content).toContain('### Inspiration #17, fitness 930 s');
    expect(user!.content).toContain('#9, fitness 920.5 s');
    expect(user!.content).toContain('// the best one');
    expect(user!.content).toContain('- require a 5 % predicted gain');
    expect(user!.content).not.toMatch(/\{\{\w+\}\}/);
  });

  it('takes a whole file in one fenced block', async () => {
    stub.enqueue({ chat: WHOLE_FILE, usage: USAGE });
    const out = await mutator().mutate(input(TINY, 1));
    expect(out.code.startsWith('// always-hold: replans only when a node goes down or comes up.\n')).toBe(true);
    expect(out.code).toContain('return ctx.membership.length > 0;');
    expect(out.editSummary).toBe('replan only on membership changes (llm: whole file)');
  });

  it('shows a SEARCH that matched nothing to the model once more, with the reason, and sums the tokens', async () => {
    stub.enqueue({ chat: BAD_EDIT, usage: USAGE }, { chat: GOOD_EDIT, usage: { prompt_tokens: 1500, completion_tokens: 60 } });
    const out = await mutator().mutate(input(TINY, 1));
    expect(out.code).toContain('const HOLD = 90;');
    expect(out.editSummary).toBe('hold 90 s instead of 120 s after a reschedule (llm: 1 SEARCH/REPLACE block, after a follow-up)');
    expect(out.promptTokens).toBe(2700);
    expect(out.completionTokens).toBe(140);
    expect(stub.requests).toHaveLength(2);
    const followup = stub.messages(1);
    expect(followup.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(followup[2]!.content).toBe(BAD_EDIT);
    expect(followup[3]!.content).toContain('block 1 failed because\nthe SEARCH text does not occur in the code');
    expect(followup[3]!.content).toContain('const HOLD_SECONDS = 120;');
  });

  it("fails with 'search-mismatch' when the follow-up does not match either, keeping the tokens spent", async () => {
    stub.enqueue({ chat: BAD_EDIT, usage: USAGE }, { chat: BAD_EDIT, usage: USAGE });
    const error = await failure(mutator().mutate(input(TINY, 1)));
    expect(error.reason).toBe('search-mismatch');
    expect(error.cost).toEqual({ model: 'stub-model', promptTokens: 2400, completionTokens: 160 });
    expect(stub.requests).toHaveLength(2);
  });

  it('retries a 429 and succeeds', async () => {
    stub.enqueue({ status: 429, headers: FAST.retry, message: 'slow down' }, { chat: GOOD_EDIT, usage: USAGE });
    const out = await mutator().mutate(input(TINY, 1));
    expect(out.code).toContain('const HOLD = 90;');
    expect(stub.requests).toHaveLength(2);
  });

  it("fails with 'rate-limit' when 429s outlast the retries", async () => {
    stub.enqueue(...[0, 1, 2].map(() => ({ status: 429, headers: FAST.retry })));
    const error = await failure(mutator().mutate(input(TINY, 1)));
    expect(error.reason).toBe('rate-limit');
    expect(stub.requests).toHaveLength(3);
  });

  it("fails with 'server-error' when 5xx outlast the retries", async () => {
    stub.enqueue({ status: 500, headers: FAST.retry }, { status: 502, headers: FAST.retry }, { status: 503, headers: FAST.retry });
    const error = await failure(mutator().mutate(input(TINY, 1)));
    expect(error.reason).toBe('server-error');
    expect(error.message).toContain('503');
    expect(stub.requests).toHaveLength(3);
  });

  it("fails with 'timeout' when the server hangs past the request timeout", async () => {
    stub.enqueue({ hang: true });
    const error = await failure(mutator({ timeoutMs: 300, maxRetries: 0 }).mutate(input(TINY, 1)));
    // The server never answers: only the client's own timeout can end the request, once, without a retry.
    expect(error.reason).toBe('timeout');
    expect(stub.requests).toHaveLength(1);
  });

  it("fails with 'empty-answer' on an empty answer, with its tokens", async () => {
    stub.enqueue({ chat: '', usage: { prompt_tokens: 1000, completion_tokens: 0 } });
    const error = await failure(mutator().mutate(input(TINY, 1)));
    expect(error.reason).toBe('empty-answer');
    expect(error.cost.promptTokens).toBe(1000);
    stub.enqueue({ chat: null });
    expect((await failure(mutator().mutate(input(TINY, 1)))).reason).toBe('empty-answer');
  });

  it("fails with 'garbage' on prose without edits, and on a body that is not a completion", async () => {
    // Hand-written: advice without any edit.
    stub.enqueue({ chat: 'You could consider replanning less often when the queue is short.' });
    expect((await failure(mutator().mutate(input(TINY, 1)))).reason).toBe('garbage');
    stub.enqueue({ raw: '<html>502 Bad Gateway</html>', contentType: 'text/html' });
    expect((await failure(mutator().mutate(input(TINY, 1)))).reason).toBe('garbage');
    stub.enqueue({ raw: '{"choices": [', contentType: 'application/json' });
    expect((await failure(mutator().mutate(input(TINY, 1)))).reason).toBe('garbage');
  });

  it("fails with 'parse' when the edited policy does not parse or loses a contract function", async () => {
    // Hand-written: an edit that leaves a brace open.
    stub.enqueue({ chat: 'SUMMARY: oops\n<<<<<<< SEARCH\nconst HOLD = 120;\n=======\nconst HOLD = {;\n>>>>>>> REPLACE\n' });
    expect((await failure(mutator().mutate(input(TINY, 1)))).reason).toBe('parse');
    stub.enqueue({ chat: '```js\nfunction schedule(ctx) { return ctx.plan; }\n```' });
    const error = await failure(mutator().mutate(input(TINY, 1)));
    expect(error.reason).toBe('parse');
    expect(error.message).toContain('shouldReschedule');
  });

  it("fails with 'endpoint' when nothing listens there", async () => {
    const gone = await StubServer.start();
    await gone.stop();
    const error = await failure(createLlmMutator({ baseURL: gone.baseURL, model: 'm', maxRetries: 0, env: {} }).mutate(input(TINY, 1)));
    expect(error.reason).toBe('endpoint');
  });

  it("fails with 'endpoint' when the server refuses the request (401)", async () => {
    stub.enqueue({ status: 401, message: 'bad key' });
    const error = await failure(mutator().mutate(input(TINY, 1)));
    expect(error.reason).toBe('endpoint');
    expect(stub.requests).toHaveLength(1);
  });

  it("fails with 'aborted' when the caller's signal fires", async () => {
    stub.enqueue({ hang: true });
    const controller = new AbortController();
    const pending = failure(mutator().mutate(input(TINY, 1), controller.signal));
    // Abort once the request is in flight at the server (observed), not after a guessed delay.
    while (stub.requests.length === 0) await new Promise((r) => setTimeout(r, 10));
    controller.abort();
    expect((await pending).reason).toBe('aborted');
  });

  it('uses templates from templatesDir, the shipped ones for files it lacks', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'autopoiesis-prompts-'));
    writeFileSync(join(dir, 'mutation.md'), 'Make #{{parentId}} faster:\n{{parentCode}}\n');
    stub.enqueue({ chat: GOOD_EDIT });
    await mutator({ templatesDir: dir }).mutate(input(TINY, 1));
    const [system, user] = stub.messages(0);
    expect(user!.content.startsWith('Make #1 faster:\n```js\n/*\n * tiny')).toBe(true);
    expect(system!.content).toContain('T_total');
  });
});

describe('llm mutator configuration', () => {
  it('stops at creation with a UsageError when no endpoint is configured', () => {
    expect(() => createLlmMutator({ model: 'm', env: {} })).toThrow(UsageError);
    expect(() => createLlmMutator({ model: 'm', env: {} })).toThrow(/needs an endpoint: set OPENAI_BASE_URL/);
  });

  it('reads OPENAI_BASE_URL, OPENAI_API_KEY and AUTOPOIESIS_MODEL', async () => {
    stub.enqueue({ chat: GOOD_EDIT });
    const m = createLlmMutator({ env: { OPENAI_BASE_URL: stub.baseURL, OPENAI_API_KEY: 'env-key', AUTOPOIESIS_MODEL: 'env-model' } });
    await m.mutate(input(TINY, 1));
    expect(stub.requests[0]!.headers.authorization).toBe('Bearer env-key');
    expect(stub.requests[0]!.body.model).toBe('env-model');
  });

  it('rejects a missing model, a bad URL, a bad timeout and an unknown placeholder', () => {
    expect(() => createLlmMutator({ baseURL: stub.baseURL, env: {} })).toThrow(/needs a model/);
    expect(() => createLlmMutator({ baseURL: 'localhost:8000', model: 'm', env: {} })).toThrow(UsageError);
    expect(() => createLlmMutator({ baseURL: stub.baseURL, model: 'm', timeoutMs: 0.5, env: {} })).toThrow(UsageError);
    const dir = mkdtempSync(join(tmpdir(), 'autopoiesis-prompts-'));
    writeFileSync(join(dir, 'system.md'), 'You are {{persona}}.');
    expect(() => createLlmMutator({ baseURL: stub.baseURL, model: 'm', templatesDir: dir, env: {} })).toThrow(/unknown placeholder \{\{persona\}\}/);
    expect(() => createLlmMutator({ baseURL: stub.baseURL, model: 'm', templatesDir: join(dir, 'missing'), env: {} })).toThrow(UsageError);
  });
});
