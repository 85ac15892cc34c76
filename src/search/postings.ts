// Relevance pages of a single frequent word or a one- or two-character prefix, read from the ranked
// postings (migration 013) instead of ranking their hundreds of thousands of matches: the exact
// tiers first (a handful of rows, ranked as usual), then the slice's postings in their stored order,
// which is the order the ranking would give them (prefix tier, similarity, filing date, number).
// Postings are read as document numbers, which the index holds: skipping 10,000 of them for a deep
// page reads index pages only.
import type pg from 'pg';
import type { RankedQuery } from './ranked.js';
import { Sql } from './sql.js';

/** Postings read by the first step; later steps read four times more (filters may reject many). */
const FIRST_STEP = 64;

/** The next `limit` postings of `slice` from `offset`, in rank order, as document numbers. */
async function postingDocs(pool: pg.Pool, slice: string, offset: number, limit: number): Promise<string[]> {
  const { rows } = await pool.query<{ document_number: string }>(
    `SELECT document_number FROM registry.entity_postings WHERE slice = $1
     ORDER BY prefix DESC, sim DESC, filed DESC, document_number OFFSET $2 LIMIT $3`,
    [slice, offset, limit],
  );
  return rows.map((r) => r.document_number);
}

/** The refs of the entities `docs` names, in their order: those the query's predicate keeps, or all. */
async function refsOf(pool: pg.Pool, q: RankedQuery, docs: string[], filtered: boolean): Promise<number[]> {
  const sql = filtered ? q.sql.fork() : new Sql();
  const { rows } = await pool.query<{ ref: number }>(
    `SELECT ${q.ref} AS ref FROM unnest(${sql.p(docs)}::text[]) WITH ORDINALITY AS u(doc, pos)
     JOIN ${q.from} ON e.document_number = u.doc WHERE ${filtered ? q.where : 'true'} ORDER BY u.pos`,
    sql.params,
  );
  return rows.map((r) => r.ref);
}

/** The document numbers of `refs` (the exact tiers' few rows), to leave them out of the postings. */
async function docsOf(pool: pg.Pool, refs: number[]): Promise<Set<string>> {
  if (refs.length === 0) return new Set();
  const { rows } = await pool.query<{ document_number: string }>('SELECT document_number FROM registry.entities WHERE id = ANY($1::int[])', [refs]);
  return new Set(rows.map((r) => r.document_number));
}

/**
 * The refs at positions [from, need) of the postings past the exact tiers. Without filters every
 * posting is a match: the positions are counted on document numbers and only the page's rows are
 * looked up. With filters, postings are read in growing steps and checked against the entity rows;
 * null once `maxRead` postings did not fill the page.
 */
async function postedRefs(pool: pg.Pool, q: RankedQuery, from: number, need: number, skip: ReadonlySet<string>, maxRead: number): Promise<number[] | null> {
  const { slice, filtered } = q.postings!;
  if (!filtered) {
    const docs = (await postingDocs(pool, slice, 0, need + skip.size)).filter((d) => !skip.has(d));
    return refsOf(pool, q, docs.slice(from, need), false);
  }
  const out: number[] = [];
  for (let offset = 0, step = Math.max(FIRST_STEP, need + skip.size); out.length < need; offset += step, step *= 4) {
    if (offset >= maxRead) return null;
    const docs = await postingDocs(pool, slice, offset, step);
    out.push(...(await refsOf(pool, q, docs.filter((d) => !skip.has(d)), true)));
    if (docs.length < step) break;
  }
  return out.slice(from, need);
}

/**
 * The page (offset, limit) of a query that is exactly a posting slice's text (`q.postings`). `exact`
 * gives the refs of the rows in the exact tiers (all of them, ranked), which come first. Null when
 * filters left the page short after `maxRead` postings.
 */
export async function postingPage(pool: pg.Pool, q: RankedQuery, exact: number[], offset: number, limit: number, maxRead = Infinity): Promise<number[] | null> {
  const need = offset + limit;
  if (exact.length >= need) return exact.slice(offset, need);
  const rest = await postedRefs(pool, q, Math.max(0, offset - exact.length), need - exact.length, await docsOf(pool, exact), maxRead);
  return rest && [...exact.slice(offset), ...rest];
}
