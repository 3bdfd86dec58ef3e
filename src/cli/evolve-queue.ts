import { availableParallelism } from 'node:os';
import type { EvaluationBackend, OpenOptions } from '../evolve/engine/index.js';
import { QueueEvaluator } from '../evolve/queue/index.js';
import type { CliIO } from './io.js';
import { queueProgress, type QueueProgress } from './queue-progress.js';

/**
 * `evolve --queue redis://HOST:PORT/NAME` (and `serve --queue`): candidates go
 * to `autopoiesis worker` processes as BullMQ jobs instead of to the local
 * pool. `note()` is the queue's part of the progress line (connected
 * workers, or that none is).
 */
export function queueBackend(url: string, timeoutS: number, io: CliIO, command = 'evolve'): { backend: NonNullable<OpenOptions['backend']> } & Pick<QueueProgress, 'note' | 'onChange'> {
  const progress = queueProgress(command, url, timeoutS, io);
  const out = {
    backend: async (setup: Parameters<NonNullable<OpenOptions['backend']>>[0]): Promise<EvaluationBackend> =>
      QueueEvaluator.open({ ...setup, address: progress.address, threads: setup.threads ?? availableParallelism(), timeoutMs: timeoutS * 1000, onStatus: (s) => progress.onStatus(s) }),
    note: () => progress.note(),
    set onChange(f: (() => void) | undefined) {
      progress.onChange = f;
    },
    get onChange() {
      return progress.onChange;
    },
  };
  return out;
}
