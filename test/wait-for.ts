/**
 * Resolves once check() holds, looking every `everyMs`; rejects as soon as
 * failed() names a reason (the awaited thing can no longer happen, e.g. the
 * child exited). No time limit of its own: a slow machine only takes longer,
 * and the test's timeout is the backstop for a hang.
 */
export async function waitFor(check: () => boolean, options: { everyMs?: number; failed?: () => string | null } = {}): Promise<void> {
  const everyMs = options.everyMs ?? 50;
  for (;;) {
    if (check()) return;
    const reason = options.failed?.() ?? null;
    if (reason !== null) throw new Error(`gave up waiting: ${reason}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
