// Relevance pages of a single frequent word or a one- or two-character prefix, read from the ranked
// postings (migration 013) instead of ranking their hundreds of thousands of matches: the exact
// tiers first (a handful of rows, ranked as usual), then the slice's postings in their stored order,
// which is the order the ranking would give them (prefix tier, similarity, filing date, number).
import type pg from 'pg';
import type { RankedQuery } from './ranked.js';

/** Postings read by the first step; later steps read four times more (filters may reject many). */
const FIRST_STEP = 64;

/** The next `limit` posting refs of `slice` from `offset`, in rank order. */
async function postingRefs(pool: pg.Pool, slice: string, offset: number, limit: number): Promise<number[]> {
  const { rows } = await pool.query<{ id: number }>(
    `SELECT id FROM registry.entity_postings WHERE slice = $1
     ORDER BY prefix DESC, sim DESC, filed DESC, document_number OFFSET $2 LIMIT $3`,
    [slice, offset, limit],
  );
  return rows.map((r) => r.id);
}

/** Those of `refs` the query's predicate (filters included) keeps, in their order. */
async function kept(pool: pg.Pool, q: RankedQuery, refs: number[]): Promise<number[]> {
  const sql = q.sql.fork();
  const { rows } = await pool.query<{ ref: number }>(
    `SELECT ${q.ref} AS ref FROM unnest(${sql.p(refs)}::int[]) WITH ORDINALITY AS u(ref, pos)
     JOIN ${q.from} ON ${q.ref} = u.ref WHERE ${q.where} ORDER BY u.pos`,
    sql.params,
  );
  return rows.map((r) => r.ref);
}

/**
 * The first `need` refs past the exact tiers: postings are read in rank order, in growing steps,
 * checked against the query's filters, and those already placed (`skip`) left out.
 */
async function postedRefs(pool: pg.Pool, q: RankedQuery, slice: string, filtered: boolean, need: number, skip: ReadonlySet<number>): Promise<number[]> {
  const out: number[] = [];
  for (let offset = 0, step = Math.max(FIRST_STEP, need + skip.size); out.length < need; offset += step, step *= 4) {
    const refs = await postingRefs(pool, slice, offset, step);
    // Without filters every posting of the slice is a match.
    for (const ref of filtered ? await kept(pool, q, refs) : refs) if (!skip.has(ref)) out.push(ref);
    if (refs.length < step) break;
  }
  return out.slice(0, need);
}

/**
 * The page (offset, limit) of a query that is exactly a posting slice's text (`q.postings`). `exact` gives the refs
 * of the rows in the exact tiers (all of them, ranked), which come first.
 */
export async function postingPage(pool: pg.Pool, q: RankedQuery, exact: number[], offset: number, limit: number): Promise<number[]> {
  const need = offset + limit;
  const { slice, filtered } = q.postings!;
  const rest = exact.length >= need ? [] : await postedRefs(pool, q, slice, filtered, need - exact.length, new Set(exact));
  return [...exact, ...rest].slice(offset, offset + limit);
}
