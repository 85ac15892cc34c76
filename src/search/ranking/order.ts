// The statements that put rows in final order (tier, similarity, tiebreak) and return a page of
// them, counting what they read when the total is still wanted.
import { Sql } from '../sql.js';
import type { Total } from '../totals/total.js';
import type pg from 'pg';
import type { RankedQuery } from './query.js';

/** Rows of tier `index`: its condition and none of the earlier tiers'. */
export function tierCondition(q: RankedQuery, index: number, sql: Sql): string {
  const own = index < q.tiers.length ? `(${q.tiers[index]!(sql)})` : 'true';
  const earlier = q.tiers.slice(0, index).map((t) => t(sql));
  return earlier.length ? `${own} AND NOT (${earlier.join(' OR ')})` : own;
}

/** The first tier's own order key, followed by a comma, when the query has one and `tier` is the first. */
export const asTypedFirst = (q: RankedQuery, tier: number, sql: Sql): string =>
  q.asTyped && tier === 0 ? `${q.asTyped(sql)}, ` : '';

/**
 * The rows of a page in final order (tier, similarity, tiebreak) over `source`, counted by
 * `count(*) OVER ()` if asked.
 */
async function orderedRows(
  pool: pg.Pool,
  q: RankedQuery,
  sql: Sql,
  source: string,
  offset: number,
  limit: number,
  counting: boolean,
): Promise<Array<{ ref: number; total?: number }>> {
  const tierCase = q.tiers.map((t, i) => `WHEN ${t(sql)} THEN ${i}`).join(' ');
  const { rows } = await pool.query<{ ref: number; total?: number }>(
    `SELECT ${q.ref} AS ref${counting ? ', count(*) OVER ()::int AS total' : ''} FROM ${source}
     ORDER BY CASE ${tierCase} ELSE ${q.tiers.length} END, ${asTypedFirst(q, 0, sql)}
       similarity(${q.text}, ${sql.p(q.query)}) DESC, ${q.tiebreak}
     OFFSET ${sql.p(offset)} LIMIT ${sql.p(limit)}`,
    sql.params,
  );
  return rows;
}

/**
 * The page in final order over the rows `where` selects. Given a total still wanted, the statement
 * counts the rows it reads for it (all matches, when `where` is the query's).
 */
export async function ordered(
  pool: pg.Pool,
  q: RankedQuery,
  sql: Sql,
  where: string,
  offset: number,
  limit: number,
  total?: Total,
): Promise<number[]> {
  const counting = total?.wanted === true;
  const rows = await orderedRows(pool, q, sql, `${q.from} WHERE ${where}`, offset, limit, counting);
  // A page past the last match has no row to carry the count: the total is then counted on its own
  // (no row on the first page: no match at all).
  if (counting && (rows.length > 0 || offset === 0)) total!.learn(rows[0]?.total ?? 0);
  return rows.map((r) => r.ref);
}

/** The whole match set ranked for the page (rank whole), without counting it. */
export const rankedWhole = (pool: pg.Pool, q: RankedQuery, offset: number, limit: number): Promise<number[]> =>
  ordered(pool, q, q.sql.fork(), q.where, offset, limit);

/**
 * The page ranked over the first `cap` + 1 matches read, and counted, in one statement: when there are
 * no more than `cap`, that is every match and the total. Otherwise (or with no row on a later page)
 * null, and the page and total are found apart.
 */
export async function orderedCapped(
  pool: pg.Pool,
  q: RankedQuery,
  offset: number,
  limit: number,
  cap: number,
  total: Total,
): Promise<number[] | null> {
  const sql = q.sql.fork();
  const alias = q.from.split(' ').pop()!;
  const rows = await orderedRows(
    pool,
    q,
    sql,
    `(SELECT * FROM ${q.from} WHERE ${q.where} LIMIT ${sql.p(cap + 1)}) ${alias}`,
    offset,
    limit,
    true,
  );
  const read = rows[0]?.total ?? (offset === 0 ? 0 : null);
  if (read === null || read > cap) return null;
  total.learn(read);
  return rows.map((r) => r.ref);
}

/**
 * The page when rows come off the (trigram count, tiebreak) index in final order, tier by tier, the
 * prefix tier off a first-word index when the query has one. With `rest`, the last tier is not
 * walked: when the earlier tiers do not fill the page, `rest` gives it.
 */
export async function tiersInIndexOrder(
  pool: pg.Pool,
  q: RankedQuery,
  offset: number,
  limit: number,
  rest?: () => Promise<number[]>,
): Promise<number[]> {
  const refs: number[] = [];
  for (let tier = 0; tier <= q.tiers.length && refs.length < offset + limit; tier++) {
    if (rest && tier === q.tiers.length) return rest();
    if (q.prefixTier && tier === q.tiers.length - 1) {
      const found = await q.prefixTier(offset + limit - refs.length, refs);
      if (found) {
        refs.push(...found);
        continue;
      }
      if (rest) return rest();
    }
    const sql = q.sql.fork();
    const { rows } = await pool.query<{ ref: number }>(
      `SELECT ${q.ref} AS ref FROM ${q.from} WHERE ${q.where} AND ${tierCondition(q, tier, sql)}
       ORDER BY ${asTypedFirst(q, tier, sql)}${q.trgm} ASC, ${q.tiebreak} LIMIT ${sql.p(offset + limit - refs.length)}`,
      sql.params,
    );
    refs.push(...rows.map((r) => r.ref));
  }
  return refs.slice(offset, offset + limit);
}
