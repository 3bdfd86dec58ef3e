import { InputError } from '../common/errors.js';

/** Where a queue lives: a Redis server and a BullMQ queue name on it. */
export interface QueueAddress {
  host: string;
  port: number;
  username?: string;
  password?: string;
  /** The BullMQ queue name (its keys are `bull:<name>:*`). */
  name: string;
}

export const DEFAULT_QUEUE = 'autopoiesis';

/**
 * `redis://[user:password@]HOST[:PORT][/NAME]`: the path is the queue name
 * (not a Redis database number: BullMQ keeps every queue in one database).
 * `queue` overrides the path (the worker's --queue).
 */
export function parseQueueAddress(url: string, field: string, queue?: string): QueueAddress {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InputError(`"${url}" is not a URL (expected redis://HOST:PORT/NAME)`, { field });
  }
  if (parsed.protocol !== 'redis:') throw new InputError(`"${url}": only redis:// URLs are supported`, { field });
  if (!parsed.hostname) throw new InputError(`"${url}" names no host`, { field });
  const port = parsed.port ? Number(parsed.port) : 6379;
  const path = decodeURIComponent(parsed.pathname.replace(/^\/+/, '').replace(/\/+$/, ''));
  const name = queue ?? (path || DEFAULT_QUEUE);
  if (!/^[A-Za-z0-9_.-]{1,100}$/.test(name)) throw new InputError(`queue name "${name}" must be 1-100 letters, digits, '_', '.' or '-'`, { field });
  return {
    host: parsed.hostname.replace(/^\[|\]$/g, ''),
    port,
    name,
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
  };
}

/**
 * ioredis options for BullMQ. `maxRetriesPerRequest: null` makes a command
 * wait through a Redis restart instead of failing after a few retries (BullMQ
 * requires it of workers; the coordinator wants the same: it waits, then goes on).
 */
export function connectionOf(a: QueueAddress) {
  return {
    host: a.host,
    port: a.port,
    username: a.username,
    password: a.password,
    maxRetriesPerRequest: null,
    // Reconnect quickly but not in a tight loop while the server is down.
    retryStrategy: (times: number) => Math.min(200 * times, 2_000),
  };
}

export function describeAddress(a: QueueAddress): string {
  return `redis://${a.host}:${a.port}/${a.name}`;
}
