// The obvious design the issue measured: a trigram GIN index on the names, `name % q` ordered by
// similarity with `count(*) OVER ()` for the total. Run on its own copy of the names in the same
// database (so the registry's own tables and their swaps are untouched), by direct SQL.
import type pg from 'pg';
import type { Query } from './mix.js';
import { percentiles, type Percentiles } from './report.js';

const TIMEOUT_MS = 30_000;

async function ensureTable(pool: pg.Pool, log: (line: string) => void): Promise<void> {
  const { rows } = await pool.query<{ naive: number | null; live: number }>(
    `SELECT (SELECT count(*) FROM registry.entities) AS live,
            (SELECT reltuples::bigint FROM pg_class WHERE oid = to_regclass('bench.naive_entities')) AS naive`,
  );
  if (rows[0]!.naive !== null && Math.abs(rows[0]!.naive - rows[0]!.live) <= rows[0]!.live * 0.01) return;
  log('building the naive design: a copy of the names with a trigram GIN index');
  await pool.query('CREATE SCHEMA IF NOT EXISTS bench');
  await pool.query('DROP TABLE IF EXISTS bench.naive_entities');
  await pool.query(
    'CREATE TABLE bench.naive_entities AS SELECT document_number, name, filing_date FROM registry.entities',
  );
  await pool.query('CREATE INDEX ON bench.naive_entities USING gin (name gin_trgm_ops)');
  await pool.query('ANALYZE bench.naive_entities');
}

export async function runNaive(
  pool: pg.Pool,
  queries: readonly Query[],
  concurrency: number,
  log: (line: string) => void,
): Promise<Percentiles & { queries: number; timeouts: number }> {
  await ensureTable(pool, log);
  const names = queries.map((q) => new URLSearchParams(q.path.split('?')[1]).get('name')!);
  const latencies: number[] = [];
  let timeouts = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      const client = await pool.connect();
      try {
        // Plain pg_trgm: its default threshold, no tuning of ours.
        await client.query(`SET pg_trgm.similarity_threshold = 0.3; SET statement_timeout = ${TIMEOUT_MS}`);
        for (let i = next++; i < names.length; i = next++) {
          const started = performance.now();
          try {
            await client.query(
              `SELECT document_number, name, count(*) OVER () AS total FROM bench.naive_entities
               WHERE name % $1 ORDER BY similarity(name, $1) DESC, filing_date DESC, document_number LIMIT 25`,
              [names[i]],
            );
            latencies.push(performance.now() - started);
          } catch {
            timeouts++;
            latencies.push(TIMEOUT_MS);
          }
        }
      } finally {
        client.release();
      }
    }),
  );
  log(`naive: ${names.length} queries`);
  return { queries: names.length, timeouts, ...percentiles(latencies) };
}
