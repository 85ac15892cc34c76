// `npx tsx bench/snapshot-diff.ts --database URL`: what a quarterly snapshot's comparison costs at a loaded
// database's scale (docs/benchmarks.md, "Monitoring's cost on a quarterly snapshot"). The staged side is the live
// tables themselves (views, in a transaction rolled back), so nothing differs and only the comparison's reading
// of both entity and both officer tables is timed, twice (cold, then as cached as the machine keeps them).
import { parseArgs } from 'node:util';
import pg from 'pg';
import { differingDocuments } from '../src/monitoring/snapshot.js';

const { values: args } = parseArgs({ options: { database: { type: 'string' } } });
if (!args.database) throw new Error('--database URL is required');
const client = new pg.Client({ connectionString: args.database });
await client.connect();
try {
  await client.query('BEGIN');
  await client.query('CREATE SCHEMA bench_snapshot_diff');
  for (const table of ['entities', 'officers'])
    await client.query(`CREATE VIEW bench_snapshot_diff.${table} AS SELECT * FROM registry.${table}`);
  const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM registry.entities');
  for (const pass of ['first', 'second']) {
    const started = performance.now();
    const diff = await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM (${differingDocuments('bench_snapshot_diff')}) d`,
    );
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(`${pass} comparison of ${rows[0]!.n} entities: ${diff.rows[0]!.n} differ, ${seconds} s`);
  }
} finally {
  await client.query('ROLLBACK');
  await client.end();
}
