import type { Command } from 'commander';
import { evolveJobHandler } from '../evolve/queue/index.js';
import { describeAddress, parseQueueAddress, QueueWorker } from '../queue/index.js';
import { suiteJobHandler } from '../suite/index.js';
import type { CliIO } from './io.js';
import { intOption } from './options.js';

interface WorkerFlags {
  redis: string;
  queue?: string;
  concurrency: number;
  lockMs: number;
  stalledMs: number;
}

/**
 * `autopoiesis worker`: a long-running evaluation worker for runs started with
 * `evolve --queue`, `suite --queue` or `serve --queue` (see docs/distributed.md):
 * it takes every kind of job (the job's name says which). SIGTERM (or SIGINT) stops taking
 * jobs, lets those in progress finish and send their answers, and exits 0.
 */
export function registerWorkerCommand(program: Command, io: CliIO): void {
  program
    .command('worker')
    .description('Evaluate candidates and suite runs sent through a BullMQ queue on Redis by `evolve`, `suite` or `serve --queue` (each in its own sandbox, as the local pool does)')
    .requiredOption('--redis <url>', 'Redis server: redis://[user:password@]HOST:PORT[/QUEUE]')
    .option('--queue <name>', 'queue name (default: the URL path, else "autopoiesis")')
    .option('--concurrency <n>', 'evaluations at once (one worker thread each)', intOption('--concurrency', 1, 256), 1)
    .option('--lock-ms <ms>', "a job's lock: how long after a worker dies its job is handed on", intOption('--lock-ms', 500, 3_600_000), 30_000)
    .option('--stalled-ms <ms>', 'how often this worker looks for jobs of dead workers', intOption('--stalled-ms', 500, 3_600_000), 30_000)
    .action(async (flags: WorkerFlags) => {
      const address = parseQueueAddress(flags.redis, '--redis', flags.queue);
      const worker = new QueueWorker({
        address,
        concurrency: flags.concurrency,
        handlers: [evolveJobHandler(flags.concurrency), suiteJobHandler(flags.concurrency)],
        lockDurationMs: flags.lockMs,
        stalledIntervalMs: flags.stalledMs,
        onJob: (e) => {
          if (e.state === 'retry') io.err(`worker: job ${e.id.slice(0, 12)} failed (${e.note}); BullMQ retries it\n`);
        },
      });
      let stopping: Promise<void> | undefined;
      const stop = () => {
        if (!stopping) {
          io.err('worker: stopping after the jobs in progress\n');
          stopping = worker.close();
        }
      };
      process.on('SIGTERM', stop);
      process.on('SIGINT', stop);
      try {
        const running = worker.run();
        await worker.waitUntilReady();
        io.err(`worker: taking jobs from ${describeAddress(address)} (concurrency ${flags.concurrency})\n`);
        await running;
        await stopping;
      } finally {
        process.removeListener('SIGTERM', stop);
        process.removeListener('SIGINT', stop);
      }
    });
}
