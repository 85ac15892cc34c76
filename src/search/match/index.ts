// Batch matching (docs/matching.md): each query's candidates found by the search, read once for the
// whole batch, graded feature by feature, scored by the version asked for, and the best judged a match
// when its score and its margin over the next candidate are clear.
import pLimit from 'p-limit';
import type pg from 'pg';
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
  const shared = { ...ctx, expand };
  const numbers = await Promise.all(queries.map((q) => limit(() => candidateNumbers(pool, shared, q))));
  const records = await candidateRecords(pool, [...new Set(numbers.flat())]);
  const algorithm = ALGORITHMS[opts.algorithm];
  return {
    algorithm: opts.algorithm,
    threshold: { score: algorithm.score, margin: algorithm.margin },
    results: queries.map((q, i) => {
      const found = numbers[i]!.flatMap((n) => records.get(n) ?? []);
      const candidates = scoreCandidates(algorithm, prepareQuery(q), found).slice(0, opts.limit);
      return { reference: q.reference ?? null, match: candidates.find((c) => c.match) ?? null, candidates };
    }),
  };
}

export { ALGORITHM_NAMES, DEFAULT_ALGORITHM, type AlgorithmName } from './algorithms.js';
