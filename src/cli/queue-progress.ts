import { describeAddress, parseQueueAddress, type QueueAddress, type QueueStatus } from '../queue/index.js';
import type { CliIO } from './io.js';

/** The queue's part of a command's progress: the connected workers, or that none is and how long the command has waited. */
export interface QueueProgress {
  address: QueueAddress;
  onStatus(status: QueueStatus): void;
  /** '' before the first look; '2 workers'; 'no worker connected: waiting (3/300 s)'; 'Redis not answering (...)'. */
  note(): string;
  /** Called on each status (a progress line redraws). */
  onChange?: () => void;
}

/**
 * `--queue redis://HOST:PORT/NAME` of evolve, suite and serve. Off a terminal
 * there is no progress line, so the wait for a worker is said once on stderr
 * (again after a worker came and went).
 */
export function queueProgress(command: string, url: string, timeoutS: number, io: CliIO): QueueProgress {
  const address = parseQueueAddress(url, '--queue');
  let status: QueueStatus | undefined;
  let warned = false;
  const out: QueueProgress = {
    address,
    onStatus(s) {
      status = s;
      if (!io.errIsTTY && s.waitingMs > 0 && s.workers === 0 && !warned) {
        warned = true;
        io.err(`${command}: no worker connected to ${describeAddress(address)}; waiting up to ${timeoutS} s (--queue-timeout)\n`);
      }
      if (s.waitingMs === 0) warned = false;
      out.onChange?.();
    },
    note() {
      if (!status) return '';
      if (status.workers === null) return `Redis not answering (${Math.round(status.waitingMs / 1000)}/${timeoutS} s)`;
      if (status.workers === 0 && status.pending > 0) return `no worker connected: waiting (${Math.round(status.waitingMs / 1000)}/${timeoutS} s)`;
      return `${status.workers} worker${status.workers === 1 ? '' : 's'}`;
    },
  };
  return out;
}
