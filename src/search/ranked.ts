// Relevance ranking without ranking every match. Rows fall in tiers (exact, prefix, the rest); in
// each tier they are ordered by trigram similarity to the query, then by a tiebreak. A row's
// similarity is at most min(a, t) / max(a, t), where a and t are the numbers of distinct trigrams of
// the query and of the row (stored with the row). So the best rows of a tier are found by walking an
// index on t outwards from a, in both directions, until no row left unread can beat the k-th best:
// exact results. Ties in the integer count make a broad query read far more than the page at 12.6
// million rows (measured in docs/search.md); few matches are ranked whole instead.
import type pg from 'pg';
import type { SearchContext } from './context.js';
import type { Total } from './counts.js';
import { trigramCount } from '../registry/normalize.js';
import { postingPage } from './postings.js';
import { Sql } from './sql.js';

export interface RankedQuery {
  /** Table and alias, e.g. `registry.entities e`. */
  readonly from: string;
  /** An integer identifying a row, e.g. `e.id`. */
  readonly ref: string;
  /** The match predicate (filters included), over the alias; its placeholders are `sql`'s. */
  readonly where: string;
  /**
   * Tier conditions in order (exact forms first, then prefix); rows matching none are the last
   * tier. Each writes its own parameters into the statement being built.
   */
  readonly tiers: ReadonlyArray<(sql: Sql) => string>;
  /** The normalized text compared, and its trigram count column. */
  readonly text: string;
  readonly trgm: string;
  /** The normalized query the similarity is taken to. */
  readonly query: string;
  /** Order after tier and similarity, e.g. `e.filing_date DESC NULLS LAST, e.document_number ASC`. */
  readonly tiebreak: string;
  readonly sql: Sql;
  /**
   * When the query is exactly a slice of the ranked postings (postings.ts): the slice, how many of
   * `tiers` are exact tiers (ranked before the postings' own order), whether filters narrow it,
   * whether a filter has an index of its own that finds the slice's matches among its rows ('rows':
   * a city, for a word) or exactly them ('matches': a prefix within a city), and the filters as a
   * condition on the postings' own columns (alias `p`) when those hold them all.
   */
  readonly postings?: {
    readonly slice: string;
    readonly exactTiers: number;
    readonly filtered: boolean;
    readonly indexedFilter: 'rows' | 'matches' | null;
    readonly filter?: (sql: Sql) => string;
  };
  /**
   * Every match holds all of the query's trigrams (the query is one frequent word, matched as
   * itself), so its similarity is a / t and falls as t grows: with an index on (t, tiebreak), each
   * tier's rows come off it in final order.
   */
  readonly trigramOrder?: boolean;
  /**
   * The prefix tier's best rows in final order (at most `need`, none of `exclude`, the exact tiers'),
   * when an index of their own serves them (a one-word query: people.ts, entities.ts), or null when it
   * cannot serve this word cheaply (the tier is then read as any other). Used with trigramOrder, and
   * for 5,000 to 25,000 matches instead of ranking them whole (rankedPage).
   */
  readonly prefixTier?: (need: number, exclude: readonly number[]) => Promise<number[] | null>;
}

/** A table's columns for the prefix tier of a one-word query, read off its first-word index. */
export interface FirstWordIndex {
  /** Table and alias, e.g. `registry.officers o`. */
  readonly from: string;
  readonly ref: string;
  /** The normalized text ranked (its first word is indexed) and its words. */
  readonly text: string;
  readonly words: string;
  readonly trgm: string;
  /** The tiebreak as the index orders it: unqualified columns, each with its direction. */
  readonly order: readonly string[];
  /** The dictionary of `words`. */
  readonly dictionary: string;
}

/** At most this many rows of words that begin with the query word and go on are read for its prefix tier. */
const LONGER_FIRST_WORDS_MAX = 10_000;

/**
 * The prefix tier of a one-word query (`word`, matching `expansions`): the names whose first word it
 * is, best first off the first-word index (migrations 026, 028) a page's worth at a time, merged with
 * the names whose first word only begins with it and that match, ranked by similarity. The first
 * hold all of the word's trigrams, so their similarity falls as their trigram count grows; the others
 * sort from the word and '0' to the word and '~' (normalized names hold only [A-Z0-9] and spaces), and
 * are read only when the dictionary's counts say they are few (SMITH among officers: 8,223 names).
 */
export function firstWordTier(
  pool: pg.Pool,
  ix: FirstWordIndex,
  word: string,
  expansions: readonly string[],
  /** The query's other conditions, tested on each row read (expressions no index is on). */
  filter?: (sql: Sql) => string,
): NonNullable<RankedQuery['prefixTier']> {
  const alias = ix.from.split(' ').pop()!;
  const order = (qualifier: string): string => ix.order.map((c) => `${qualifier}.${c}`).join(', ');
  const select = `${ix.ref} AS ref, ${ix.text} AS text, ${ix.order.map((c) => `${alias}.${c.split(' ')[0]}`).join(', ')}`;
  // Asked only when the tier is read (most one-word queries are ranked another way).
  return async (need, exclude) => {
    const { rows } = await pool.query<{ n: number }>(
      `SELECT coalesce(sum(n), 0)::bigint AS n FROM registry.${ix.dictionary} WHERE word > $1 AND word < $1 || '~'`,
      [word],
    );
    if (rows[0]!.n > LONGER_FIRST_WORDS_MAX) return null;
    const sql = new Sql();
    const [w, n] = [sql.p(word), sql.p(need)];
    const also = filter ? ` AND ${filter(sql)}` : '';
    const text = `SELECT ref FROM (
       (SELECT ${select} FROM ${ix.from} WHERE split_part(${ix.text}, ' ', 1) = ${w} AND NOT (${ix.ref} = ANY(${sql.p(exclude)}::int[]))${also}
        ORDER BY ${ix.trgm}, ${order(alias)} LIMIT ${n})
       UNION ALL
       SELECT ${select} FROM ${ix.from} WHERE ${ix.text} >= ${w} || '0' AND ${ix.text} < ${w} || '~' AND ${ix.words} && ${sql.p(expansions)}::text[]${also}
     ) t ORDER BY similarity(t.text, ${w}) DESC, ${order('t')} LIMIT ${n}`;
    return (await pool.query<{ ref: number }>(text, sql.params)).rows.map((r) => r.ref);
  };
}

interface Candidate {
  ref: number;
  sim: number;
  t: number;
}

/** Reads at most this many rows per direction before falling back to ranking the tier whole. */
const MAX_WALK = 400_000;

/** Rows of tier `index`: its condition and none of the earlier tiers'. */
function tierCondition(q: RankedQuery, index: number, sql: Sql): string {
  const own = index < q.tiers.length ? `(${q.tiers[index]!(sql)})` : 'true';
  const earlier = q.tiers.slice(0, index).map((t) => t(sql));
  return earlier.length ? `${own} AND NOT (${earlier.join(' OR ')})` : own;
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
 * from `a` in growing steps until the bound proves no unread row could rank among them.
 */
async function walkTier(pool: pg.Pool, q: RankedQuery, tier: number, need: number, a: number): Promise<Candidate[]> {
  for (let limit = Math.max(64, need * 2); ; limit *= 4) {
    const capped = Math.min(limit, MAX_WALK);
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
    if (capped === MAX_WALK) return rankTierWhole(pool, q, tier, need);
  }
}

/** The best `need` rows of a tier by ranking all of it (when walking would read too far). */
async function rankTierWhole(pool: pg.Pool, q: RankedQuery, tier: number, need: number): Promise<Candidate[]> {
  const sql = q.sql.fork();
  const text = `
    SELECT ${q.ref} AS ref, similarity(${q.text}, ${sql.p(q.query)}) AS sim, ${q.trgm} AS t
    FROM ${q.from} WHERE ${q.where} AND ${tierCondition(q, tier, sql)}
    ORDER BY sim DESC, ${q.tiebreak} LIMIT ${sql.p(need)}`;
  return (await pool.query<Candidate>(text, sql.params)).rows;
}

/** The rows of a page in final order (tier, similarity, tiebreak) over `source`, counted by `count(*) OVER ()` if asked. */
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
     ORDER BY CASE ${tierCase} ELSE ${q.tiers.length} END, similarity(${q.text}, ${sql.p(q.query)}) DESC, ${q.tiebreak}
     OFFSET ${sql.p(offset)} LIMIT ${sql.p(limit)}`,
    sql.params,
  );
  return rows;
}

/**
 * The page in final order over the rows `where` selects. Given a total still wanted, the statement
 * counts the rows it reads for it (all matches, when `where` is the query's).
 */
async function ordered(
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

/**
 * The page ranked over the first `cap` + 1 matches read, and counted, in one statement: when there are
 * no more than `cap`, that is every match and the total. Otherwise (or with no row on a later page)
 * null, and the page and total are found apart.
 */
async function orderedCapped(
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
 * The page when rows come off the (trigram count, tiebreak) index in final order, tier by tier. With
 * `rest`, the last tier is not walked: when the earlier tiers do not fill the page, `rest` gives it.
 */
async function trigramOrderedPage(
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
       ORDER BY ${q.trgm} ASC, ${q.tiebreak} LIMIT ${sql.p(offset + limit - refs.length)}`,
      sql.params,
    );
    refs.push(...rows.map((r) => r.ref));
  }
  return refs.slice(offset, offset + limit);
}

/** How many rows match: an upper bound known before any query (from the dictionary), and the exact total. */
export interface MatchSize {
  readonly bound: number;
  /** The bound is near the total (see matchBound). */
  readonly tight: boolean;
  /** An estimate of the total when filters keep fewer rows than the bound: the bound times their share of all rows. */
  readonly expected?: number;
  readonly total: Total;
}

/**
 * Below this many matches ranking every match beats walking: a walk reads about rows-asked /
 * selectivity rows, which for a rare word is much of the table. The break-even is near
 * sqrt(2 * rows asked * table rows): 25,000 for a first page at 12.6 million rows, growing with
 * the rows a deep page asks for (`firstPage` is the figure for up to 500 rows).
 */
const rankWholeBelow = (firstPage: number, need: number): number => firstPage * Math.max(1, need / 500);

/**
 * The page (offset, limit) of a relevance-ranked query: the refs in order. Few matches are ranked
 * whole (the planner cannot be trusted to know they are few: a rare word's frequency is guessed);
 * many are read from the ranked postings when the query is one of their slices, else gathered tier
 * by tier by walking, then ordered once in SQL.
 */
export async function rankedPage(
  pool: pg.Pool,
  ctx: SearchContext,
  q: RankedQuery,
  offset: number,
  limit: number,
  size: MatchSize,
): Promise<number[]> {
  const whole = rankWholeBelow(ctx.rankWholeBelow, offset + limit);
  // A word alone whose exact and prefix tiers come off indexes in final order (an officer surname, a
  // first word, also with filters whose total is added up): they fill most first pages in a few ms,
  // where ranking its 5,000 to 25,000 matches whole reads a heap page each (KANIMAL, 20,611 officers
  // at 12.6 million entities: 146 ms alone, 700 four at a time), and ranking more walks or counts them.
  // A page they do not fill is found as any other (up to the rank-whole limit: ranked whole, counted by
  // the same statement). A word matched as itself past that limit walks its tiers in order anyway.
  if (q.prefixTier && size.bound > whole / 5 && (size.bound <= whole || !q.trigramOrder)) {
    return trigramOrderedPage(pool, q, offset, limit, () => rankedAnyway(pool, q, offset, limit, size, whole));
  }
  return rankedAnyway(pool, q, offset, limit, size, whole);
}

/** The page of a relevance-ranked query, found by the size of its matches (see rankedPage); `whole` is its rank-whole limit. */
async function rankedAnyway(
  pool: pg.Pool,
  q: RankedQuery,
  offset: number,
  limit: number,
  size: MatchSize,
  whole: number,
): Promise<number[]> {
  const need = offset + limit;
  const rankWhole = (): Promise<number[]> => ordered(pool, q, q.sql.fork(), q.where, offset, limit);
  // Postings of an unfiltered slice are all matches: reading them beats ranking even a few. So do
  // those of a slice whose filters the postings' own columns hold, unless the filters keep few (decided
  // below, once the total is known): a frequent word's 20,000 to 25,000 matches ranked whole read a
  // heap page each (DAVIS, active: 24,389 pages, 257 ms in the bench's mix, 46 ms warm; now 30 ms cold).
  const mayRankWhole = !(q.postings && (!q.postings.filtered || q.postings.filter !== undefined));
  // Few matches by the dictionary's bound: ranked at once, counted by the same statement.
  if (mayRankWhole && size.bound <= whole) return ordered(pool, q, q.sql.fork(), q.where, offset, limit, size.total);
  // Words each common and rare together (3248 NE ORANGE: 22 rows): counting, then ranking, read
  // every match twice. When the total takes a read of its own, one statement ranks and counts up to
  // the rank-whole limit, and wastes that read when there are more (STARE LLC, 38,088 matches: 240 to
  // 360 ms), so not when the bound is near the total or filters are expected to keep more (RORI filed
  // since 2016, 51,331: 260 ms wasted). Past 20 times the limit, a planner expecting that many could
  // read the table in order to stop early. (A posting slice with filters reads every row of the slice
  // to find its matches: never so.)
  if (
    !q.postings &&
    size.total.wanted &&
    !size.total.cheap &&
    !size.tight &&
    size.bound <= 20 * whole &&
    (size.expected ?? 0) <= whole
  ) {
    const page = await orderedCapped(pool, q, offset, limit, whole, size.total);
    if (page) return page;
  }
  const total = await size.total.get();
  // Past the last match (or none at all): nothing to rank, whatever the predicate would cost.
  if (total <= offset) return [];
  // Few filtered matches of a broad slice. A handful that a filter's own index finds (a city: O in
  // YANKEETOWN, 23) are ranked whole at once, and up to 5,000 that an index finds exactly (M in SAINT
  // AUGUSTINE, 4,849: 17 ms, 33 from the postings). Otherwise ranking them whole reads all of them (FOUNDATION
  // in ORLANDO, 13,440: 412 ms) or, when no filter has an index, every row of the slice (FLORIDA of one
  // entity type: 1 s warm, 13 s cold at 12.6 million), and the postings usually fill the page sooner;
  // but a filter can reject the first postings wholesale (a type rare among the newest names). Status,
  // type, dates and the city are tested on the postings' index itself; other filters on the entities,
  // whose postings are then read only so far before falling back.
  // When the postings' own columns hold every filter, a word's few matches in a city come off the rank
  // index alone, about need x slice / matches entries (ASSOCIATES in ORANGE PARK, 436 of 185,429:
  // some 10,000), cheaper than ranking them whole unless that passes over more than `whole` entries.
  const indexed = q.postings?.indexedFilter;
  const postingsDecide = q.postings?.filter !== undefined && (need * size.bound) / total <= whole;
  const handful = indexed != null && !postingsDecide && total <= whole / (indexed === 'matches' ? 5 : 25);
  if (total <= whole && (!q.postings || handful)) return rankWhole();
  if (q.postings) {
    const sql = q.sql.fork();
    const exact = q.tiers.slice(0, q.postings.exactTiers).map((t) => t(sql));
    const exactRefs = await ordered(pool, q, sql, `${q.where} AND (${exact.join(' OR ')})`, 0, need);
    // At most a fifth as many postings as the matches ranked whole at once (5,000 for a first page)
    // when each is checked by a random read of its entity.
    const maxRead = total <= whole && !q.postings.filter ? whole / 5 : Infinity;
    return (await postingPage(pool, q, exactRefs, offset, limit, maxRead)) ?? rankWhole();
  }
  if (q.trigramOrder) return trigramOrderedPage(pool, q, offset, limit);
  const a = Math.max(1, trigramCount(q.query));
  const found: Placed[] = [];
  for (let tier = 0; tier <= q.tiers.length && found.length < need; tier++) {
    if (tier >= q.tiers.length - 1 && total <= WALK_FROM * whole) return rankWhole();
    for (const c of await walkTier(pool, q, tier, need - found.length, a)) found.push({ ...c, tier });
  }
  if (found.length === 0) return [];
  // The refs already satisfy the match predicate: this statement has only its own parameters.
  const sql = new Sql();
  return ordered(pool, q, sql, `${q.ref} = ANY(${sql.p(contenders(found, need))}::int[])`, offset, limit);
}

/**
 * Up to this many times the rank-whole limit, matches the exact tiers leave the page short of are
 * ranked whole rather than walked. An exact tier's walk reads its own index (names equal to the
 * query's); the prefix tier's (the last of `tiers`) and the rest's read the trigram-count index from
 * the query's count with the match predicate as a filter, and when the matches' counts lie far from
 * it (YASMULKE LLC: 46,326 names of KASSULKE and YARMULKE, each with other words) or the prefix is
 * short (BRE, 45,247 names BRE...), they pass over millions of rows that fail it: 10 s at 12.6
 * million entities. A page the exact tiers fill is not ranked whole (STARE LLC, 217 exact of 38,088
 * matches: 12 to 66 ms walked, 121 to 286 ranked whole, 1.3 s with its rows not cached).
 */
const WALK_FROM = 4;

/** A row a walk read, with its tier (tiers are disjoint, and so are a walk's two directions). */
interface Placed extends Candidate {
  tier: number;
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
