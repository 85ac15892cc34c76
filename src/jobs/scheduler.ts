// Runs every job on its schedule inside the server (croner, UTC). Each instance schedules all jobs;
// the advisory lock in runJob makes one of them do the work.
import { Cron } from 'croner';
import type { Clock } from '../clock.js';
import type { Job, JobContext } from './job.js';
import { runJob } from './job.js';

export interface Scheduler {
  stop(): Promise<void>;
}

export function startScheduler(jobs: readonly Job[], context: (asOf: Date) => JobContext, clock: Clock, log: (line: string) => void): Scheduler {
  const running = new Set<Promise<unknown>>();
  const launch = (job: Job, trigger: 'schedule' | 'startup'): void => {
    const p = runJob(job, context(clock.now()), trigger)
      .then((r) => {
        if (r.status === 'failed') log(`job ${job.name} failed: ${r.error}`);
      })
      .catch((err: unknown) => log(`job ${job.name} could not run: ${String(err)}`))
      .finally(() => running.delete(p));
    running.add(p);
  };
  // protect: a run still going when its next time comes is not started twice in this process.
  const crons = jobs.map((job) => new Cron(job.schedule, { timezone: 'UTC', protect: true }, () => launch(job, 'schedule')));
  for (const job of jobs) if (job.atStartup) launch(job, 'startup');
  return {
    async stop() {
      for (const c of crons) c.stop();
      await Promise.allSettled([...running]);
    },
  };
}
