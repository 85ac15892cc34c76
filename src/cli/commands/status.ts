import type { Command } from 'commander';
import { datasetState, datasetStatus, staleSince } from '../../registry/dataset.js';
import { withDatabase } from '../context.js';
import { keyValueLines, printResult, type OutputOptions } from '../output.js';

export function registerStatus(program: Command): void {
  program
    .command('status')
    .description('dataset counts per table, the last import and refresh, and the dataset status')
    .option('--json', 'print as JSON')
    .action(async (opts: OutputOptions) => {
      const result = await withDatabase(async (db) => {
        const state = await datasetState(db.pool);
        const { rows } = await db.pool.query(
          `SELECT file_name, kind, file_date::text, records_loaded, records_updated, records_rejected,
                  to_char(finished_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS finished_at
           FROM imports ORDER BY finished_at DESC, id DESC LIMIT 1`,
        );
        const { rows: runs } = await db.pool.query(
          `SELECT status, to_char(started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS started_at, error
           FROM job_runs WHERE job = 'refresh' ORDER BY started_at DESC LIMIT 1`,
        );
        const now = new Date();
        return {
          dataset_status: datasetStatus(state.refreshed_at, now),
          stale_since: staleSince(state.refreshed_at, now),
          ...state,
          last_import: rows[0] ?? null,
          last_refresh_run: runs[0] ?? null,
        };
      });
      printResult(result, opts, (r) => keyValueLines(r));
    });
}
