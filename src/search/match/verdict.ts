// A query's candidates scored and ordered, and the verdict on the best (docs/matching.md, "Score and
// verdict"): a match when its score is clear, its margin over the next candidate is clear and its name is
// not graded different.
import type { MatchAlgorithm } from './algorithms.js';
import { scoreOf } from './algorithms.js';
import type { CandidateRecord } from './candidates.js';
import { gradeFeatures, type PreparedQuery } from './features.js';
import { MATCH_FEATURES, type MatchCandidate } from './shapes.js';

/** Every candidate scored, best first (ties: active before inactive, then the search's order). */
export function scoreCandidates(
  algorithm: MatchAlgorithm,
  q: PreparedQuery,
  found: readonly CandidateRecord[],
): MatchCandidate[] {
  const scored = found.map((e, at) => {
    const graded = gradeFeatures(q, e);
    const { score, shares } = scoreOf(algorithm, graded);
    const features = Object.fromEntries(
      MATCH_FEATURES.map((f) => [f, { grade: graded[f].grade, contribution: shares[f] }]),
    ) as MatchCandidate['features'];
    const candidate: MatchCandidate = {
      document_number: e.document_number,
      entity_name: e.entity_name,
      status: e.status,
      entity_type: e.entity_type,
      principal_address_street: e.principal_address_street,
      principal_city: e.principal_city,
      principal_zip: e.principal_zip,
      score,
      match: false,
      features,
    };
    return { candidate, at };
  });
  scored.sort(
    (a, b) =>
      b.candidate.score - a.candidate.score ||
      Number(b.candidate.status === 'active') - Number(a.candidate.status === 'active') ||
      a.at - b.at,
  );
  const ordered = scored.map((s) => s.candidate);
  const [top, next] = ordered;
  if (
    top &&
    top.score >= algorithm.score &&
    top.score - (next?.score ?? 0) >= algorithm.margin &&
    top.features.name.grade !== 'different'
  )
    ordered[0] = { ...top, match: true };
  return ordered;
}
