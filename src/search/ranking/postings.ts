// Relevance pages of a single frequent word or a one- or two-character prefix, read from the ranked
// postings (registry.entity_postings) instead of ranking their hundreds of thousands of matches: the
// exact tiers first (a handful of rows, ranked as usual), then the slice's postings in their stored
// order, which is the order the ranking would give them (prefix tier, similarity, filing date,
// number). Postings are read off their rank index (entity_postings_rank_idx), which holds each one's
// entity and the columns filters ask about (status, type, filing date, city): skipping 10,000 of them
// for a deep page, or passing over those a filter rejects, reads index pages only.
import type pg from 'pg';
import { Sql } from '../sql.js';
import { POSTINGS_FIRST_STEP, STEP_GROWTH } from '../thresholds.js';
import { ordered } from './order.js';
import type { RankedQuery } from './query.js';

interface Posting {
  document_number: string;
  id: number;
}

/**
 * The next `limit` postings of `slice` from `offset`, in rank order, that pass `filter` (a condition
 * over the postings' own columns, alias `p`): read off the rank index, which holds them all.
 */
async function postingRows(
  pool: pg.Pool,
  slice: string,
  offset: number,
  limit: number,
  filter?: (sql: Sql) => string,
): Promise<Posting[]> {
  const sql = new Sql();
  const { rows } = await pool.query<Posting>(
    `SELECT document_number, id FROM registry.entity_postings p
     WHERE slice = ${sql.p(slice)}${filter ? ` AND ${filter(sql)}` : ''}
     ORDER BY prefix DESC, sim DESC, filed DESC, document_number OFFSET ${sql.p(offset)} LIMIT ${sql.p(limit)}`,
    sql.params,
  );
  return rows;
}

/** The refs of the entities `docs` names that the query's predicate keeps, in their order. */
async function refsOf(pool: pg.Pool, q: RankedQuery, docs: string[]): Promise<number[]> {
  const sql = q.sql.fork();
  const { rows } = await pool.query<{ ref: number }>(
    `SELECT ${q.ref} AS ref FROM unnest(${sql.p(docs)}::text[]) WITH ORDINALITY AS u(doc, pos)
     JOIN ${q.from} ON e.document_number = u.doc WHERE ${q.where} ORDER BY u.pos`,
    sql.params,
  );
  return rows.map((r) => r.ref);
}

/** The document numbers of `refs` (the exact tiers' few rows), to leave them out of the postings. */
async function docsOf(pool: pg.Pool, refs: number[]): Promise<Set<string>> {
  if (refs.length === 0) return new Set();
  const { rows } = await pool.query<{ document_number: string }>(
    'SELECT document_number FROM registry.entities WHERE id = ANY($1::int[])',
    [refs],
  );
  return new Set(rows.map((r) => r.document_number));
}

/**
 * The refs at positions [from, need) of the postings past the exact tiers. When every posting is a
 * match, or the postings' own columns decide which are (status, type, dates), one read of the rank
 * index finds them. With other filters, postings are read in growing steps and checked against the
 * entity rows; null once `maxRead` postings did not fill the page.
 */
async function postedRefs(
  pool: pg.Pool,
  q: RankedQuery,
  from: number,
  need: number,
  skip: ReadonlySet<string>,
  maxRead: number,
): Promise<number[] | null> {
  const { slice, filtered, filter } = q.postings!;
  if (!filtered || filter) {
    const rows = await postingRows(pool, slice, 0, need + skip.size, filter);
    return rows
      .filter((r) => !skip.has(r.document_number))
      .slice(from, need)
      .map((r) => r.id);
  }
  const out: number[] = [];
  for (
    let offset = 0, step = Math.max(POSTINGS_FIRST_STEP, need + skip.size);
    out.length < need;
    offset += step, step *= STEP_GROWTH
  ) {
    if (offset >= maxRead) return null;
    const docs = (await postingRows(pool, slice, offset, step)).map((r) => r.document_number);
    out.push(
      ...(await refsOf(
        pool,
        q,
        docs.filter((d) => !skip.has(d)),
      )),
    );
    if (docs.length < step) break;
  }
  return out.slice(from, need);
}

/**
 * The page (offset, limit) of a query that is exactly a posting slice's text (`q.postings`): the rows
 * of its exact tiers (all of them, ranked) first, then the postings. Null when filters left the page
 * short after `maxRead` postings.
 */
export async function postingPage(
  pool: pg.Pool,
  q: RankedQuery,
  offset: number,
  limit: number,
  maxRead: number,
): Promise<number[] | null> {
  const need = offset + limit;
  const sql = q.sql.fork();
  const exactTiers = q.tiers.slice(0, q.exactTiers).map((t) => t(sql));
  const exact = await ordered(pool, q, sql, `${q.where} AND (${exactTiers.join(' OR ')})`, 0, need);
  if (exact.length >= need) return exact.slice(offset, need);
  const rest = await postedRefs(
    pool,
    q,
    Math.max(0, offset - exact.length),
    need - exact.length,
    await docsOf(pool, exact),
    maxRead,
  );
  return rest && [...exact.slice(offset), ...rest];
}
