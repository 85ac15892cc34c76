// The trigram walk: a row's similarity to the query is at most min(a, t) / max(a, t), where a and t
// are the numbers of distinct trigrams of the query and of the row (stored with the row, indexed).
// So the best rows of a tier are found by walking the trigram-count index outwards from a, in both
// directions, until no row left unread can beat the k-th best: exact results, reading few rows when
// the matches' counts lie near the query's (docs/search.md, "Ranking").
import type pg from 'pg';
import { trigramCount } from '../../text/normalize.js';
import { Sql } from '../sql.js';
import { STEP_GROWTH, WALK_FIRST_STEP_MIN, WALK_FIRST_STEP_PER_ROW, WALK_ROWS_MAX } from '../thresholds.js';
import { asTypedFirst, ordered, tierCondition } from './order.js';
import type { RankedQuery } from './query.js';

interface Candidate {
  ref: number;
  sim: number;
  t: number;
}

/** A row a walk read, with its tier (tiers are disjoint, and so are a walk's two directions). */
interface Placed extends Candidate {
  tier: number;
}

/** One step of a walk: the first `limit` rows of the tier from `a` upwards (or downwards) in trigram count. */
async function fetchWalk(
  pool: pg.Pool,
  q: RankedQuery,
  tier: number,
  up: boolean,
  a: number,
  limit: number,
): Promise<Candidate[]> {
  const sql = q.sql.fork();
  const text = `
    SELECT ${q.ref} AS ref, similarity(${q.text}, ${sql.p(q.query)}) AS sim, ${q.trgm} AS t
    FROM ${q.from}
    WHERE ${q.where} AND ${tierCondition(q, tier, sql)} AND ${q.trgm} ${up ? '>=' : '<'} ${sql.p(a)}
    ORDER BY ${q.trgm} ${up ? 'ASC' : 'DESC'} LIMIT ${sql.p(limit)}`;
  return (await pool.query<Candidate>(text, sql.params)).rows;
}

/**
 * The refs of the best `need` rows of one tier (all of them if it holds fewer), by walking both ways
 * from `a` in growing steps until the bound proves no unread row could rank among them. With a `cap`, a walk
 * that reads that many rows one way answers the best it read.
 */
async function walkTier(
  pool: pg.Pool,
  q: RankedQuery,
  tier: number,
  need: number,
  a: number,
  cap: number | undefined,
): Promise<Candidate[]> {
  // A cap below the rows still needed would leave the page short of matches it has.
  const most = Math.min(Math.max(cap ?? WALK_ROWS_MAX, need), WALK_ROWS_MAX);
  for (let limit = Math.max(WALK_FIRST_STEP_MIN, need * WALK_FIRST_STEP_PER_ROW); ; limit *= STEP_GROWTH) {
    const capped = Math.min(limit, most);
    const [up, down] = await Promise.all([
      fetchWalk(pool, q, tier, true, a, capped),
      fetchWalk(pool, q, tier, false, a, capped),
    ]);
    const all = [...up, ...down];
    const upDone = up.length < capped;
    const downDone = down.length < capped;
    if (all.length < need) {
      if (upDone && downDone) return all;
    } else {
      const kth = Math.fround([...all.map((c) => c.sim)].sort((x, y) => y - x)[need - 1]!);
      const lastUp = up[up.length - 1]?.t ?? a;
      const lastDown = down[down.length - 1]?.t ?? a;
      // Both in float4, as PostgreSQL computes similarity (and prints it shortest: 6 / 7 arrives as
      // 0.85714287, above 6 / 7 in double). Compared in double, the bound fell below a k-th best tied
      // with it, and the walk stopped inside the tie, keeping whichever of those rows it had read
      // (JOHNS among officers: 64 of the 94 names JOHNS JOHN; the first page changed between calls).
      const bound = (t: number): number => Math.fround(Math.min(a, t) / Math.max(a, t));
      const boundUp = upDone ? -1 : bound(lastUp);
      const boundDown = downDone ? -1 : bound(lastDown);
      // An unread row ties at best with the bound: strictly below the k-th best, it cannot enter.
      if (boundUp < kth && boundDown < kth) return all;
    }
    if (capped === most) return cap === undefined ? rankTierWhole(pool, q, tier, need) : all;
  }
}

/** The best `need` rows of a tier by ranking all of it (when walking would read too far). */
async function rankTierWhole(pool: pg.Pool, q: RankedQuery, tier: number, need: number): Promise<Candidate[]> {
  const sql = q.sql.fork();
  const text = `
    SELECT ${q.ref} AS ref, similarity(${q.text}, ${sql.p(q.query)}) AS sim, ${q.trgm} AS t
    FROM ${q.from} WHERE ${q.where} AND ${tierCondition(q, tier, sql)}
    ORDER BY ${asTypedFirst(q, tier, sql)}sim DESC, ${q.tiebreak} LIMIT ${sql.p(need)}`;
  return (await pool.query<Candidate>(text, sql.params)).rows;
}

/**
 * The page (offset, limit) walked tier by tier, then ordered once in SQL. Only the first `walked`
 * tiers are walked (all of them: `q.tiers.length` + 1, the rest included); a page they leave short
 * is `short()`'s. `cap`: the search context's walkRowsCap.
 */
export async function walkedPage(
  pool: pg.Pool,
  q: RankedQuery,
  page: { offset: number; limit: number; cap: number | undefined },
  walked: number,
  short: () => Promise<number[]>,
): Promise<number[]> {
  const { offset, limit, cap } = page;
  const need = offset + limit;
  const a = Math.max(1, trigramCount(q.query));
  const found: Placed[] = [];
  for (let tier = 0; tier <= q.tiers.length && found.length < need; tier++) {
    if (tier >= walked) return short();
    for (const c of await walkTier(pool, q, tier, need - found.length, a, cap)) found.push({ ...c, tier });
  }
  if (found.length === 0) return [];
  // The refs already satisfy the match predicate: this statement has only its own parameters.
  const sql = new Sql();
  return ordered(pool, q, sql, `${q.ref} = ANY(${sql.p(contenders(found, need))}::int[])`, offset, limit);
}

/**
 * The rows read that can be among the best `need`: those ranking, by tier and similarity alone, no
 * lower than the need-th best. Only their tiebreak is left to order, and the statement doing that
 * reads each row again by its ref, at 12.6 million rows through an index outside the cache (officer
 * surnames: 150 to 470 ms). The officer queries of the bench's mix that walk passed 871 rows to it
 * instead of 1,984, at most 277 instead of 1,024.
 */
export function contenders(found: readonly Placed[], need: number): number[] {
  if (found.length <= need) return found.map((c) => c.ref);
  // float4, as PostgreSQL orders them (see walkTier).
  const better = (x: Placed, y: Placed): number => x.tier - y.tier || Math.fround(y.sim) - Math.fround(x.sim);
  const kth = [...found].sort(better)[need - 1]!;
  return found.filter((c) => better(c, kth) <= 0).map((c) => c.ref);
}
