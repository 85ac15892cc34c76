// Runs every job on its schedule inside the server (croner, UTC). Each instance schedules all jobs;
// the advisory lock in runJob makes one of them do the work.
import { Cron } from 'croner';
import type { Clock } from '../clock.js';
import type { Job, JobContext } from './job.js';
import { runJob } from './job.js';

export interface Scheduler {
  stop(): Promise<void>;
}

export function startScheduler(
  jobs: readonly Job[],
  context: (asOf: Date) => JobContext,
  clock: Clock,
  log: (line: string) => void,
): Scheduler {
  const running = new Set<Promise<unknown>>();
  // Failed runs in a row and the pending retry, per job with a retry policy.
  const failures = new Map<string, number>();
  const retries = new Map<string, NodeJS.Timeout>();
  let stopped = false;
  const retryLater = (job: Job): void => {
    const n = (failures.get(job.name) ?? 0) + 1;
    failures.set(job.name, n);
    if (!job.retryDelayMs || stopped) return;
    const delay = job.retryDelayMs(n);
    clearTimeout(retries.get(job.name));
    retries.set(
      job.name,
      setTimeout(() => launch(job, 'retry'), delay),
    );
    log(`job ${job.name}: retrying in ${Math.round(delay / 60_000)} min (failure ${n} in a row)`);
  };
  const launch = (job: Job, trigger: 'schedule' | 'startup' | 'retry'): void => {
    // Whatever starts this run replaces a retry still waiting.
    clearTimeout(retries.get(job.name));
    retries.delete(job.name);
    const p = runJob(job, context(clock.now()), trigger)
      .then((r) => {
        if (r.status === 'failed') {
          log(`job ${job.name} failed: ${r.error}`);
          retryLater(job);
        } else if (r.status === 'succeeded') {
          failures.delete(job.name);
          clearTimeout(retries.get(job.name));
          retries.delete(job.name);
        }
      })
      .catch((err: unknown) => log(`job ${job.name} could not run: ${String(err)}`))
      .finally(() => running.delete(p));
    running.add(p);
  };
  // protect: a run still going when its next time comes is not started twice in this process.
  const crons = jobs.map(
    (job) => new Cron(job.schedule, { timezone: 'UTC', protect: true }, () => launch(job, 'schedule')),
  );
  for (const job of jobs) if (job.atStartup) launch(job, 'startup');
  return {
    async stop() {
      stopped = true;
      for (const c of crons) c.stop();
      for (const t of retries.values()) clearTimeout(t);
      await Promise.allSettled([...running]);
    },
  };
}
