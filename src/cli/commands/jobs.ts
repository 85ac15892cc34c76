import type { Command } from 'commander';
import { systemClock } from '../../clock.js';
import { findJob, JOBS } from '../../main/jobs.js';
import { runJob } from '../../jobs/job.js';
import { logLine, withDatabase } from '../context.js';
import { printResult, type OutputOptions } from '../output.js';

/** `--date YYYY-MM-DD`: run as of 00:00 UTC that day. */
function asOf(date: string | undefined): Date {
  if (date === undefined) return systemClock.now();
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(Date.parse(`${date}T00:00:00Z`)))
    throw new Error(`--date must be YYYY-MM-DD, not ${date}`);
  return new Date(`${date}T00:00:00Z`);
}

export function registerJobs(program: Command): void {
  const jobs = program.command('jobs').description('the scheduled jobs: list them, run one by hand');
  jobs
    .command('list')
    .option('--json', 'print as JSON')
    .action(async (opts: OutputOptions) => {
      const result = await withDatabase(async (db, config) => {
        const { rows } = await db.pool.query<{
          job: string;
          status: string;
          finished_at: string | null;
          counts: unknown;
        }>(
          `SELECT DISTINCT ON (job) job, status,
                  to_char(coalesce(finished_at, started_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
                    AS finished_at,
                  counts
           FROM job_runs ORDER BY job, started_at DESC`,
        );
        const last = new Map(rows.map((r) => [r.job, r]));
        return JOBS.map((j) => ({
          name: j.name,
          schedule: j.schedule,
          description: j.description,
          scheduled: j.enabled?.(config) ?? true,
          last_run: last.get(j.name) ?? null,
        }));
      });
      printResult(result, opts, (list) =>
        list
          .map(
            (j) =>
              `${j.name.padEnd(18)} ${j.schedule.padEnd(12)} ` +
              `${j.last_run ? `${j.last_run.status} ${j.last_run.finished_at}` : 'never run'}` +
              `${j.scheduled ? '' : ' (not scheduled with this configuration)'}` +
              `\n${' '.repeat(19)}${j.description}`,
          )
          .join('\n'),
      );
    });
  jobs
    .command('run')
    .argument('<name>')
    .option('--date <YYYY-MM-DD>', 'run as of 00:00 UTC on this date')
    .option('--json', 'print as JSON')
    .action(async (name: string, opts: OutputOptions & { date?: string }) => {
      const job = findJob(name);
      const result = await withDatabase((db, config) =>
        runJob(job, { pool: db.pool, config, clock: systemClock, asOf: asOf(opts.date), log: logLine }, 'manual'),
      );
      printResult(
        result,
        opts,
        (r) => `${r.job}: ${r.status}${r.error ? ` (${r.error})` : ''} ${JSON.stringify(r.counts)}`,
      );
      if (result.status !== 'succeeded') process.exitCode = 1;
    });
}
