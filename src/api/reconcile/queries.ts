// Reconciliation queries (v0.2, "Reconciliation Query Responses"): each query of a batch matched by the matcher of
// POST /v1/entities/match (docs/matching.md), its candidates answered as the spec's: id (the document number), name,
// a description, the type, the score on 0 to 100, the matcher's verdict as `match`, and each graded feature's share of
// the score as a matching feature.
import { DEFAULT_ALGORITHM, type MatchAnswer } from '../../search/index.js';
import type { Services } from '../services.js';
import type { ReconcileQuery } from './batch.js';
import { typeOf } from './vocabulary.js';

type MatchCandidate = MatchAnswer['results'][number]['candidates'][number];

/** The spec's scores read best as points of 100; one decimal keeps the matcher's order without its noise. */
const toPoints = (share: number): number => Math.round(share * 1000) / 10;

function candidate(c: MatchCandidate) {
  const type = typeOf(c.entity_type);
  return {
    id: c.document_number,
    name: c.entity_name,
    description: [c.status, type?.name, [c.principal_city, c.principal_zip].filter(Boolean).join(' ')]
      .filter(Boolean)
      .join(' · '),
    score: toPoints(c.score),
    match: c.match,
    type: type ? [type] : [],
    // A feature the query or the entity lacks counts neither way: it is not listed.
    features: Object.entries(c.features)
      .filter(([, f]) => f.grade !== 'absent')
      .map(([id, f]) => ({ id, value: toPoints(f.contribution) })),
  };
}

/** The result batch: per query's key, its candidates best first (as many as it asked for). */
export async function reconcile(services: Services, queries: readonly ReconcileQuery[]): Promise<unknown> {
  // One batch for the matcher: the candidates are ordered and judged before any is cut, so each query's own limit
  // keeps its best and its verdict.
  const limit = Math.max(...queries.map((q) => q.limit));
  const { results } = await services.search.match(
    queries.map(({ limit: _limit, ...q }) => q),
    { limit, algorithm: DEFAULT_ALGORITHM },
  );
  return Object.fromEntries(
    queries.map((q, i) => [q.reference, { result: results[i]!.candidates.slice(0, q.limit).map(candidate) }]),
  );
}
