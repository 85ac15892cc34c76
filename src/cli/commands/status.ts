import type { Command } from 'commander';
import { datasetCounts, datasetStatus } from '../../registry/dataset.js';
import { withDatabase } from '../context.js';
import { keyValueLines, printResult, type OutputOptions } from '../output.js';

export function registerStatus(program: Command): void {
  program
    .command('status')
    .description('dataset counts per table, the last import and the dataset status')
    .option('--json', 'print as JSON')
    .action(async (opts: OutputOptions) => {
      const result = await withDatabase(async (db) => {
        const counts = await datasetCounts(db.pool);
        const { rows } = await db.pool.query(
          `SELECT file_name, kind, file_date::text, records_loaded, records_updated, records_rejected,
                  to_char(finished_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS finished_at
           FROM imports ORDER BY finished_at DESC, id DESC LIMIT 1`,
        );
        return { dataset_status: datasetStatus(counts.last_import_at, new Date()), ...counts, last_import: rows[0] ?? null };
      });
      printResult(result, opts, (r) => keyValueLines(r));
    });
}
