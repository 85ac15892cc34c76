import type { Command } from 'commander';
import { systemClock } from '../../clock.js';
import { runJob } from '../../jobs/job.js';
import { findJob } from '../../main/jobs.js';
import { planRefresh, type RefreshPlan } from '../../registry/refresh/run.js';
import { logLine, withDatabase } from '../context.js';
import { printResult, type OutputOptions } from '../output.js';

const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;

function human(p: RefreshPlan): string {
  const line = (f: RefreshPlan['daily'][number]): string =>
    `fetch     ${(f.file_date ?? 'snapshot').padEnd(10)}  ${f.kind.padEnd(19)}  ${mb(f.size_bytes).padStart(9)}` +
    `${f.partial_bytes ? ` (resumes at ${mb(f.partial_bytes)})` : ''}  ${f.source_path}`;
  return [
    `source: ${p.source} (${p.listed} registry files; ${p.already_applied} daily files already applied, ` +
      `${p.older_than_snapshot} older than the snapshot)`,
    ...p.snapshots.map(line),
    ...p.daily.map(line),
    ...p.held_back.map((h) => `held back ${h.file}: ${h.reason}`),
    ...p.days_not_published.map((d) => `no file   ${d} (a workday; later days are there, so taken as not published)`),
    ...(p.note ? [`note: ${p.note}`] : []),
    p.snapshots.length + p.daily.length === 0 ? 'nothing to fetch' : `to download: ${mb(p.download_bytes)}`,
  ].join('\n');
}

export function registerRefresh(program: Command): void {
  program
    .command('refresh')
    .description("fetch the registry's new files from REGISTRY_SOURCE and apply them (the refresh job, run now)")
    .option('--dry-run', 'list the source and show what would be fetched; change nothing')
    .option('--json', 'print as JSON')
    .action(async (opts: OutputOptions & { dryRun?: boolean }) => {
      if (opts.dryRun) {
        const plan = await withDatabase((db, config) =>
          planRefresh({ pool: db.pool, config, clock: systemClock, log: logLine }),
        );
        printResult(plan, opts, human);
        return;
      }
      const result = await withDatabase((db, config) =>
        runJob(
          findJob('refresh'),
          { pool: db.pool, config, clock: systemClock, asOf: systemClock.now(), log: logLine },
          'manual',
        ),
      );
      printResult(
        result,
        opts,
        (r) => `${r.job}: ${r.status}${r.error ? ` (${r.error})` : ''} ${JSON.stringify(r.counts)}`,
      );
      if (result.status !== 'succeeded') process.exitCode = 1;
    });
}
