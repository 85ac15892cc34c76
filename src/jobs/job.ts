// What a scheduled job is, and how one run goes: under a PostgreSQL advisory lock (so one
// instance runs it at a time), recorded in job_runs with its outcome and counts.
import type pg from 'pg';
import type { Clock } from '../clock.js';
import type { Config } from '../config/index.js';

export interface JobContext {
  readonly pool: pg.Pool;
  readonly config: Config;
  readonly clock: Clock;
  /** The instant the run is for: now, or the date given by hand (00:00 UTC that day). */
  readonly asOf: Date;
  readonly log: (line: string) => void;
  /** The job_runs row of this run (set by runJob), for jobs that record details against it. */
  readonly runId?: number;
}

export interface Job {
  readonly name: string;
  /** Cron expression, in UTC. */
  readonly schedule: string;
  readonly description: string;
  /** Also run when the server starts (to catch up what was missed while it was down). */
  readonly atStartup?: boolean;
  /** Whether the scheduler runs it with this configuration (default: always). */
  readonly enabled?: (config: Config) => boolean;
  /** After the n-th failed run in a row: run again this many ms later (default: wait for the schedule). */
  readonly retryDelayMs?: (failures: number) => number;
  /** Does the work; idempotent for its `asOf`; returns what it did, as counts. */
  run(ctx: JobContext): Promise<Record<string, number | string>>;
}

export type Trigger = 'schedule' | 'manual' | 'startup' | 'retry';

export interface JobRun {
  job: string;
  status: 'succeeded' | 'failed' | 'locked';
  as_of: string;
  counts: Record<string, number | string>;
  error: string | null;
  elapsed_ms: number;
}

const lockKey = (job: string): string => `registry-lookup job ${job}`;

/** The error a run gets when its process ended before it did (a kill, a crash), found by the next run. */
export const ABANDONED = 'abandoned: its process ended before the run did';

/** Runs `job` once if no other instance is running it; records the run. */
export async function runJob(job: Job, ctx: JobContext, trigger: Trigger): Promise<JobRun> {
  const started = Date.now();
  const lock = await ctx.pool.connect();
  try {
    const { rows } = await lock.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS ok', [
      lockKey(job.name),
    ]);
    if (!rows[0]?.ok)
      return { job: job.name, status: 'locked', as_of: ctx.asOf.toISOString(), counts: {}, error: null, elapsed_ms: 0 };
    try {
      // Holding the lock, no other run of this job is alive: one still 'running' ended with its process.
      await ctx.pool.query(
        `UPDATE job_runs SET status = 'failed', finished_at = clock_timestamp(), error = $2
         WHERE job = $1 AND status = 'running'`,
        [job.name, ABANDONED],
      );
      const { rows: run } = await ctx.pool.query<{ id: number }>(
        `INSERT INTO job_runs (job, trigger, as_of, started_at, status)
         VALUES ($1, $2, $3, clock_timestamp(), 'running') RETURNING id`,
        [job.name, trigger, ctx.asOf],
      );
      const id = run[0]!.id;
      try {
        const counts = await job.run({ ...ctx, runId: id });
        await ctx.pool.query(
          `UPDATE job_runs SET status = 'succeeded', finished_at = clock_timestamp(), counts = $2 WHERE id = $1`,
          [id, counts],
        );
        return {
          job: job.name,
          status: 'succeeded',
          as_of: ctx.asOf.toISOString(),
          counts,
          error: null,
          elapsed_ms: Date.now() - started,
        };
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        await ctx.pool.query(
          `UPDATE job_runs SET status = 'failed', finished_at = clock_timestamp(), error = $2 WHERE id = $1`,
          [id, message],
        );
        ctx.log(`job ${job.name} failed: ${message}`);
        return {
          job: job.name,
          status: 'failed',
          as_of: ctx.asOf.toISOString(),
          counts: {},
          error: message,
          elapsed_ms: Date.now() - started,
        };
      }
    } finally {
      await lock.query('SELECT pg_advisory_unlock(hashtext($1))', [lockKey(job.name)]);
    }
  } finally {
    lock.release();
  }
}
