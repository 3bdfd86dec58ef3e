import { availableParallelism } from 'node:os';
import type { EvaluationBackend, OpenOptions } from '../evolve/engine/index.js';
import { describeAddress, parseQueueAddress, QueueEvaluator, type QueueStatus } from '../evolve/queue/index.js';
import type { CliIO } from './io.js';

/**
 * `evolve --queue redis://HOST:PORT/NAME`: candidates go to `autopoiesis
 * worker` processes as BullMQ jobs instead of to the local pool. `note()` is
 * the queue's part of the progress line (connected workers, or that none is).
 */
export function queueBackend(url: string, timeoutS: number, io: CliIO): { backend: NonNullable<OpenOptions['backend']>; note(): string; onChange?: () => void } {
  const address = parseQueueAddress(url, '--queue');
  let status: QueueStatus | undefined;
  let warned = false;
  const onStatus = (s: QueueStatus) => {
    status = s;
    // Off a terminal there is no progress line: say once that the run waits for a worker.
    if (!io.errIsTTY && s.waitingMs > 0 && s.workers === 0 && !warned) {
      warned = true;
      io.err(`evolve: no worker connected to ${describeAddress(address)}; waiting up to ${timeoutS} s (--queue-timeout)\n`);
    }
    if (s.waitingMs === 0) warned = false;
    out.onChange?.();
  };
  const out: ReturnType<typeof queueBackend> = {
    backend: async (setup): Promise<EvaluationBackend> =>
      QueueEvaluator.open({ ...setup, address, threads: setup.threads ?? availableParallelism(), timeoutMs: timeoutS * 1000, onStatus }),
    note() {
      if (!status) return '';
      if (status.workers === null) return `Redis not answering (${Math.round(status.waitingMs / 1000)}/${timeoutS} s)`;
      if (status.workers === 0 && status.pending > 0) return `no worker connected: waiting (${Math.round(status.waitingMs / 1000)}/${timeoutS} s)`;
      return `${status.workers} worker${status.workers === 1 ? '' : 's'}`;
    },
  };
  return out;
}
