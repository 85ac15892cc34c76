// How a relevance page is found (docs/search.md, "The strategy"): what is known of the query's matches
// (the dictionary's bound before any statement, the exact total after) picks one way in the tables
// below, and the executors beside this file carry it out. Every way gives the same page and total,
// so the tables weigh cost only; their thresholds are in src/search/thresholds.ts.
import type pg from 'pg';
import type { SearchContext } from '../context.js';
import {
  CAPPED_RANK_BOUND_MULTIPLE,
  CHECKED_POSTINGS_MAX_DIVISOR,
  FIRST_WORD_TIERS_FROM_DIVISOR,
  INDEXED_MATCHES_HANDFUL_DIVISOR,
  INDEXED_ROWS_HANDFUL_DIVISOR,
  RANK_WHOLE_AFTER_EXACT_MULTIPLE,
  RANK_WHOLE_PAGE_ROWS,
} from '../thresholds.js';
import { ordered, orderedCapped, rankedWhole, tiersInIndexOrder } from './order.js';
import { postingPage } from './postings.js';
import type { MatchSize, RankedQuery } from './query.js';
import { walkedPage } from './trigram-walk.js';

/**
 * Below this many matches ranking every match beats walking: a walk reads about rows-asked /
 * selectivity rows, which for a rare word is much of the table. `firstPage` is the figure for pages
 * of up to RANK_WHOLE_PAGE_ROWS rows; it grows with the rows a deeper page asks for.
 */
const rankWholeLimit = (firstPage: number, need: number): number =>
  firstPage * Math.max(1, need / RANK_WHOLE_PAGE_ROWS);

/**
 * A word alone whose exact and prefix tiers come off indexes in final order (an officer surname, a
 * first word, also with filters whose total is added up) reads them first: they fill most first pages
 * in a few ms, where ranking its 5,000 to 25,000 matches whole reads a heap page each (KANIMAL,
 * 20,611 officers: 146 ms alone, 700 four at a time), and ranking more walks or counts them. A word
 * matched as itself past the rank-whole limit reads its tiers in index order anyway (planByTotal).
 */
const firstWordTiersFirst = (q: RankedQuery, size: MatchSize, whole: number): boolean =>
  q.prefixTier !== undefined &&
  size.bound > whole / FIRST_WORD_TIERS_FROM_DIVISOR &&
  (size.bound <= whole || !q.trigramOrder);

/** What the dictionary's bound decides before the total is known. */
type ByBound =
  /** Few matches: ranked whole at once, counted by the same statement. */
  | { way: 'rank whole, counting' }
  /** Rank and count the first matches in one statement; when there are more, decide by the total. */
  | { way: 'rank capped, counting' }
  | { way: 'decide by the total' };

function planByBound(q: RankedQuery, size: MatchSize, whole: number): ByBound {
  // Postings of an unfiltered slice are all matches: reading them beats ranking even a few. So do
  // those of a slice whose filters the postings' own columns hold, unless the filters keep few
  // (planByTotal): a frequent word's 20,000 to 25,000 matches ranked whole read a heap page each
  // (DAVIS, active: 24,389 pages, 257 ms; 30 ms off the postings, cold).
  const postingsFirst = q.postings !== undefined && (!q.postings.filtered || q.postings.filter !== undefined);
  if (!postingsFirst && size.bound <= whole) return { way: 'rank whole, counting' };
  // Words each common and rare together (3248 NE ORANGE: 22 rows) have a large bound and few matches:
  // counting, then ranking, read every match twice. When the total takes a read of its own, one
  // statement ranks and counts up to the rank-whole limit, and wastes that read when there are more
  // (STARE LLC, 38,088 matches: 240 to 360 ms), so not when the bound is near the total or filters
  // are expected to keep more (RORI filed since 2016, 51,331: 260 ms wasted). A posting slice with
  // filters reads every row of the slice to find its matches: never so.
  if (
    !q.postings &&
    size.total.wanted &&
    !size.total.cheap &&
    !size.tight &&
    size.bound <= CAPPED_RANK_BOUND_MULTIPLE * whole &&
    (size.expected ?? 0) <= whole
  )
    return { way: 'rank capped, counting' };
  return { way: 'decide by the total' };
}

/** What the exact total decides. */
type ByTotal =
  /** Past the last match (or none at all): nothing to rank, whatever the predicate would cost. */
  | { way: 'nothing' }
  | { way: 'rank whole' }
  /** The exact tiers, then the slice's postings; ranked whole after all past `maxRead` postings. */
  | { way: 'postings'; maxRead: number }
  /** A word matched as itself: every tier off the (trigram count, tiebreak) index in final order. */
  | { way: 'tiers in index order' }
  /** The trigram walk of the first `walkedTiers` tiers; a page they leave short is ranked whole. */
  | { way: 'walk'; walkedTiers: number };

function planByTotal(
  q: RankedQuery,
  size: MatchSize,
  whole: number,
  total: number,
  offset: number,
  need: number,
): ByTotal {
  if (total <= offset) return { way: 'nothing' };
  // Few filtered matches of a broad slice. A handful that a filter's own index finds (a city: O in
  // YANKEETOWN, 23) are ranked whole at once, and more when that index finds exactly them (M in
  // SAINT AUGUSTINE, 4,849: 17 ms, 33 from the postings). Otherwise ranking them whole reads all of
  // them (FOUNDATION in ORLANDO, 13,440: 412 ms) or, when no filter has an index, every row of the
  // slice (FLORIDA of one entity type: 1 s warm, 13 s cold), and the postings usually fill the page
  // sooner. When the postings' own columns hold every filter, a word's few matches in a city come off
  // the rank index alone, about need × slice / matches entries (ASSOCIATES in ORANGE PARK, 436 of
  // 185,429: some 10,000), cheaper than ranking them whole unless that passes over more than `whole`.
  const indexed = q.postings?.indexedFilter;
  const postingsDecide = q.postings?.filter !== undefined && (need * size.bound) / total <= whole;
  const handfulMax = whole / (indexed === 'matches' ? INDEXED_MATCHES_HANDFUL_DIVISOR : INDEXED_ROWS_HANDFUL_DIVISOR);
  const handful = indexed != null && !postingsDecide && total <= handfulMax;
  if (total <= whole && (!q.postings || handful)) return { way: 'rank whole' };
  if (q.postings) {
    // Filters tested on the entities can reject the first postings wholesale (a type rare among the
    // newest names): few matches read a bounded number of postings, each checked by a random read.
    const checked = total <= whole && !q.postings.filter;
    return { way: 'postings', maxRead: checked ? whole / CHECKED_POSTINGS_MAX_DIVISOR : Infinity };
  }
  if (q.trigramOrder) return { way: 'tiers in index order' };
  if (q.neverWalk) return { way: 'rank whole' };
  // Up to a few times the rank-whole limit, matches the exact tiers (names equal to the query's, off
  // their own indexes) leave the page short of are ranked whole: the prefix tier's walk and the last
  // one's read the trigram-count index with the match predicate as a filter, and when the matches'
  // counts lie far from the query's (YASMULKE LLC: 46,326 names of KASSULKE and YARMULKE) or the
  // prefix is short (BRE) they pass over millions of rows that fail it (10 s). A page the exact
  // tiers fill is walked (STARE LLC, 217 exact of 38,088: 12 to 66 ms, 121 to 286 ranked whole).
  const exactOnly = total <= RANK_WHOLE_AFTER_EXACT_MULTIPLE * whole;
  return { way: 'walk', walkedTiers: exactOnly ? q.exactTiers : q.tiers.length + 1 };
}

/**
 * The page (offset, limit) of a relevance-ranked query: the refs in order. Few matches are ranked
 * whole (the planner of PostgreSQL cannot be trusted to know they are few: a rare word's frequency is
 * guessed); many are read from the ranked postings when the query is one of their slices, else
 * gathered tier by tier by walking, then ordered once in SQL.
 */
export async function rankedPage(
  pool: pg.Pool,
  ctx: SearchContext,
  q: RankedQuery,
  offset: number,
  limit: number,
  size: MatchSize,
): Promise<number[]> {
  const whole = rankWholeLimit(ctx.rankWholeBelow, offset + limit);
  const bySize = (): Promise<number[]> => pageBySize(pool, q, { offset, limit, cap: ctx.walkRowsCap }, size, whole);
  // A page the first-word tiers do not fill is found as any other.
  if (firstWordTiersFirst(q, size, whole)) return tiersInIndexOrder(pool, q, offset, limit, bySize);
  return bySize();
}

/** The page of a relevance query by the size of its matches; `whole` is its rank-whole limit, `cap` the walk's. */
async function pageBySize(
  pool: pg.Pool,
  q: RankedQuery,
  page: { offset: number; limit: number; cap: number | undefined },
  size: MatchSize,
  whole: number,
): Promise<number[]> {
  const { offset, limit } = page;
  const byBound = planByBound(q, size, whole);
  if (byBound.way === 'rank whole, counting') return ordered(pool, q, q.sql.fork(), q.where, offset, limit, size.total);
  if (byBound.way === 'rank capped, counting') {
    const page = await orderedCapped(pool, q, offset, limit, whole, size.total);
    if (page) return page;
  }
  const total = await size.total.get();
  const byTotal = planByTotal(q, size, whole, total, offset, offset + limit);
  const rankWhole = (): Promise<number[]> => rankedWhole(pool, q, offset, limit);
  switch (byTotal.way) {
    case 'nothing':
      return [];
    case 'rank whole':
      return rankWhole();
    case 'postings':
      return (await postingPage(pool, q, offset, limit, byTotal.maxRead)) ?? rankWhole();
    case 'tiers in index order':
      return tiersInIndexOrder(pool, q, offset, limit);
    case 'walk':
      return walkedPage(pool, q, page, byTotal.walkedTiers, rankWhole);
  }
}
