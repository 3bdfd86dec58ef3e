import { existsSync } from 'node:fs';

/** A file the hostile fixtures would write if they ever reached the host's fs. */
export const ESCAPE_FILE = '/tmp/autopoiesis-escaped';

/**
 * What a hostile policy would change on the host if it got out: prototypes,
 * globals, the builtins the sandbox relies on, the process. Compared before
 * and after each hostile call.
 */
export function hostState(): Record<string, unknown> {
  const names = (o: object): string[] => Reflect.ownKeys(o).map(String).sort();
  return {
    objectPrototype: names(Object.prototype),
    arrayPrototype: names(Array.prototype),
    functionPrototype: names(Function.prototype),
    stringPrototype: names(String.prototype),
    promisePrototype: names(Promise.prototype),
    errorPrepareStackTrace: (Error as { prepareStackTrace?: unknown }).prepareStackTrace,
    globals: names(globalThis).filter((n) => !n.startsWith('__vitest')),
    mathRandom: Math.random,
    date: Date,
    dateNow: Date.now,
    jsonStringify: JSON.stringify,
    jsonParse: JSON.parse,
    objectKeys: Object.keys,
    reflectApply: Reflect.apply,
    arrayIsArray: Array.isArray,
    processExit: process.exit,
    processExitCode: process.exitCode,
    polluted: ({} as Record<string, unknown>).polluted,
    isAdmin: ({} as Record<string, unknown>).isAdmin,
    arrayRoles: ([] as unknown as Record<string, unknown>).roles,
    escaped: existsSync(ESCAPE_FILE),
  };
}
