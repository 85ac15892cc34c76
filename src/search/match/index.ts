// Batch matching (docs/matching.md): each query's candidates found by the search, read once for the
// whole batch, graded feature by feature, scored by the version asked for, and the best judged a match
// when its score and its margin over the next candidate are clear.
import pLimit from 'p-limit';
import type pg from 'pg';
import { isQueryCanceled } from '../../db/pool.js';
import type { SearchContext } from '../context.js';
import { expandedWords } from '../entities/name.js';
import { batchedExpand } from '../words/batched.js';
import { ALGORITHMS, type AlgorithmName } from './algorithms.js';
import { candidateNumbers, candidateRecords } from './candidates.js';
import { scoreCandidates } from './verdict.js';
import type { MatchAnswer, MatchQuery } from './shapes.js';
import { prepareQuery } from './features.js';

/** Queries of one batch searched at once: the read pool's connections are shared with every other call. */
const SEARCHES_AT_ONCE = 4;
/**
 * A candidate search's trigram walk reads at most this many rows one way, then keeps the nearest names it read
 * (SearchContext.walkRowsCap): at 12.6 million, ANA GROUP LLC's 429,844 matches walked to the exact order took 9.2 s,
 * where its steps up to this many rows take a few tens of ms.
 */
const MATCH_WALK_ROWS_CAP = 4_096;

export interface MatchOptions {
  /** Candidates answered per query. */
  readonly limit: number;
  readonly algorithm: AlgorithmName;
}

export async function matchEntities(
  pool: pg.Pool,
  ctx: SearchContext,
  queries: readonly MatchQuery[],
  opts: MatchOptions,
): Promise<MatchAnswer> {
  // The names' words looked up together, in one statement: a third of a row's search when each looks up its own.
  const expand = batchedExpand(pool);
  await Promise.all(queries.map((q) => expand('entity_words', expandedWords(q.name))));
  const limit = pLimit(SEARCHES_AT_ONCE);
  const shared = { ...ctx, expand, walkRowsCap: MATCH_WALK_ROWS_CAP };
  const numbers = await Promise.all(queries.map((q) => limit(() => searchedOrTimedOut(pool, shared, q))));
  // A call of which no query could be answered fails whole, as one search past the timeout does.
  const stopped = numbers.find((n) => n instanceof Error);
  if (numbers.every((n) => n instanceof Error)) throw stopped;
  const records = await candidateRecords(pool, [...new Set(numbers.flatMap((n) => (n instanceof Error ? [] : n)))]);
  const algorithm = ALGORITHMS[opts.algorithm];
  return {
    algorithm: opts.algorithm,
    threshold: { score: algorithm.score, margin: algorithm.margin },
    results: queries.map((q, i) => {
      const reference = q.reference ?? null;
      const n = numbers[i]!;
      if (n instanceof Error) return { reference, match: null, candidates: [], error: 'query_timeout' as const };
      const found = n.flatMap((number) => records.get(number) ?? []);
      const candidates = scoreCandidates(algorithm, prepareQuery(q), found).slice(0, opts.limit);
      return { reference, match: candidates.find((c) => c.match) ?? null, candidates, error: null };
    }),
  };
}

/** A query's candidates, or the error of its search that the statement timeout stopped (the others go on). */
async function searchedOrTimedOut(pool: pg.Pool, ctx: SearchContext, q: MatchQuery): Promise<string[] | Error> {
  try {
    return await candidateNumbers(pool, ctx, q);
  } catch (err) {
    if (isQueryCanceled(err)) return err as Error;
    throw err;
  }
}

export { ALGORITHM_NAMES, DEFAULT_ALGORITHM, type AlgorithmName } from './algorithms.js';
