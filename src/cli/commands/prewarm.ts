import type { Command } from 'commander';
import { prewarmDataset } from '../../db/prewarm.js';
import { createPool } from '../../db/pool.js';
import { logLine, withDatabase } from '../context.js';
import { printResult, type OutputOptions } from '../output.js';

export function registerPrewarm(program: Command): void {
  program
    .command('prewarm')
    .description(
      "read the dataset's most-read tables and indexes into the database server's cache " +
        '(done after every full load; on a replica, --replica)',
    )
    .option('--replica', 'prewarm the server of READ_DATABASE_URL instead of the primary')
    .option('--json', 'print the result as JSON')
    .action(async (opts: OutputOptions & { replica?: boolean }) => {
      const result = await withDatabase(async (db, config) => {
        if (!opts.replica) return prewarmDataset(db.pool, logLine);
        if (!config.readDatabaseUrl) throw new Error('--replica needs READ_DATABASE_URL');
        // Its own connection: the read pool's statement timeout would stop a large table's read.
        const pool = createPool(config.readDatabaseUrl, 1, { applicationName: 'registry-lookup-prewarm' });
        try {
          return await prewarmDataset(pool, logLine);
        } finally {
          await pool.end();
        }
      });
      printResult(result, opts, (r) =>
        r ? `prewarmed ${r.relations} relations, ${r.bytes} bytes` : 'not prewarmed: the server has no pg_prewarm',
      );
    });
}
