// The matcher's versions (docs/matching.md, "Score and verdict"). A version fixes the weights and the
// threshold, so a customer's results do not move under them: a change of either is a new version, and the
// older ones stay callable by name.
import type { Graded } from './features.js';
import type { MatchFeature } from './shapes.js';

export interface MatchAlgorithm {
  /** Each feature's weight; a feature the query does not have counts neither in the score nor in its whole. */
  readonly weights: Readonly<Record<MatchFeature, number>>;
  /** A match scores at least this ... */
  readonly score: number;
  /** ... at least this much more than the next candidate, and its name is not graded different. */
  readonly margin: number;
}

export const ALGORITHMS = {
  'match-v1': {
    // The name decides most; each corroborating feature can lift a close name over the threshold or sink a
    // namesake elsewhere.
    weights: { name: 0.6, legal_form: 0.05, address: 0.1, city: 0.1, zip: 0.1, officer: 0.15 },
    score: 0.85,
    margin: 0.05,
  },
} as const satisfies Record<string, MatchAlgorithm>;

export type AlgorithmName = keyof typeof ALGORITHMS;
export const ALGORITHM_NAMES = Object.keys(ALGORITHMS) as AlgorithmName[];
/** The newest version, used when a call names none. */
export const DEFAULT_ALGORITHM: AlgorithmName = 'match-v1';

/** The score (the weighted mean of the features counted) and each feature's share of it. */
export function scoreOf(
  algorithm: MatchAlgorithm,
  graded: Record<MatchFeature, Graded>,
): { score: number; shares: Record<MatchFeature, number> } {
  const features = Object.keys(graded) as MatchFeature[];
  const whole = features.reduce((n, f) => n + (graded[f].counted ? algorithm.weights[f] : 0), 0);
  const shares = Object.fromEntries(
    features.map((f) => [f, whole === 0 ? 0 : round((algorithm.weights[f] * graded[f].value) / whole)]),
  ) as Record<MatchFeature, number>;
  const score = whole === 0 ? 0 : features.reduce((n, f) => n + algorithm.weights[f] * graded[f].value, 0) / whole;
  return { score: round(score), shares };
}

/** Scores and shares shown to 4 decimals: enough to order, and stable to read. */
const round = (x: number): number => Math.round(x * 10_000) / 10_000;
