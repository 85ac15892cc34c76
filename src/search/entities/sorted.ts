// A sorted page of an entity query (name_asc, name_desc, date_newest, date_oldest), found the way
// its strategy chose (sortedWay): every match sorted, or a walk of the sort's index.
import type pg from 'pg';
import type { Sql } from '../sql.js';
import type { EntitySearch } from './query.js';
import type { EntityStrategy, SortedWay, SortKey } from './strategy.js';

const SORT_ORDER: Record<SortKey, string> = {
  name_asc: 'e.name_norm ASC, e.document_number ASC',
  name_desc: 'e.name_norm DESC, e.document_number ASC',
  date_oldest: 'e.filing_date ASC NULLS LAST, e.document_number ASC',
  date_newest: 'e.filing_date DESC NULLS LAST, e.document_number ASC',
};

/** The refs of the page in `sort`'s order over the matches of the strategy's predicate (`matches` of them). */
export async function sortedPage(
  pool: pg.Pool,
  { sql, where, q }: EntityStrategy,
  sort: SortKey,
  way: SortedWay,
  matches: number,
): Promise<number[]> {
  if (way === 'nothing') return [];
  const s = sql.fork();
  if (way === 'walk oldest first') return oldestFirstWalk(pool, s, where, q, matches);
  // Sorting all: the fence (OFFSET 0) keeps PostgreSQL from walking the sort's index instead.
  const from =
    way === 'walk the sort index'
      ? `registry.entities e WHERE ${where}`
      : `(SELECT * FROM registry.entities e WHERE ${where} OFFSET 0) e`;
  const { rows } = await pool.query<{ id: number }>(
    `SELECT e.id FROM ${from} ORDER BY ${SORT_ORDER[sort]} OFFSET ${s.p(q.offset)} LIMIT ${s.p(q.limit)}`,
    s.params,
  );
  return rows.map((r) => r.id);
}

/**
 * A page oldest first, walked: there is no ascending date index; the newest-first ones read
 * backwards give each day's rows by descending document number and the undated rows first. So the
 * dated rows are read in date order and each day's re-sorted by document number (an incremental sort
 * of one day), and the undated rows, which come last oldest first as newest first, are read by a page
 * that reaches them, counted only when it begins past every dated row.
 */
async function oldestFirstWalk(
  pool: pg.Pool,
  sql: Sql,
  where: string,
  q: EntitySearch,
  matches: number,
): Promise<number[]> {
  const dated = sql.fork();
  const { rows } = await pool.query<{ id: number }>(
    `SELECT e.id FROM registry.entities e WHERE ${where} AND e.filing_date IS NOT NULL
     ORDER BY e.filing_date ASC NULLS FIRST, e.document_number ASC
     OFFSET ${dated.p(q.offset)} LIMIT ${dated.p(q.limit)}`,
    dated.params,
  );
  const ids = rows.map((r) => r.id);
  if (ids.length === q.limit) return ids;
  const undatedRows = `registry.entities e WHERE ${where} AND e.filing_date IS NULL`;
  let offset = 0;
  if (ids.length === 0) {
    const { rows: counted } = await pool.query<{ n: number }>(
      `SELECT count(*)::bigint AS n FROM ${undatedRows}`,
      sql.params,
    );
    offset = q.offset - (matches - counted[0]!.n);
  }
  const undated = sql.fork();
  const { rows: more } = await pool.query<{ id: number }>(
    `SELECT e.id FROM ${undatedRows} ORDER BY e.document_number ASC
     OFFSET ${undated.p(offset)} LIMIT ${undated.p(q.limit - ids.length)}`,
    undated.params,
  );
  return [...ids, ...more.map((r) => r.id)];
}
