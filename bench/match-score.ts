// The batch-matching benchmark's arithmetic (docs/benchmarks.md, "Batch matching"): raw precision, recall and
// truth among candidates per kind of row and overall, and the quality targets they are held to.
import { percentiles, type Percentiles } from './report.js';

/** Precision of `match: true`: true matches over every match, negatives' included. */
export const PRECISION_TARGET = 0.98;
/** Recall of `match: true` over the rows with a truth. */
export const RECALL_TARGET = 0.95;
/** Rows with a truth whose truth is among the candidates. */
export const CANDIDATES_TARGET = 0.99;
/** A call of 100 queries, p95 in ms: reported, not gated (it means something at 12.6 million entities only). */
export const CALL_P95_TARGET_MS = 1500;

/** A row as scored: its kind and the entities a match may name to be right. */
export interface ScoredRow {
  kind: string;
  /** The entity the row names; empty for a negative. */
  truth: string;
  /**
   * The truth and every entity of the same normalized name and principal city (the generator can write the same
   * name twice); for a negative, the entities of its normalized name and city, if any.
   */
  accepted: ReadonlySet<string>;
}

/** What the service answered for a row: the match's document number, the candidates'; null when its call failed. */
export type Answer = { match: string | null; candidates: readonly string[] } | null;

export interface Figures {
  rows: number;
  /** Rows whose call failed: counted as answered with no match and no candidate. */
  failed: number;
  /** Rows with a truth that other entities share (same normalized name and city), and negatives naming one. */
  ambiguous: number;
  with_truth: number;
  matched: number;
  matched_right: number;
  /** Right matches of rows with a truth (recall's numerator). */
  found: number;
  truth_in_candidates: number;
  precision: number | null;
  recall: number | null;
  candidates_share: number | null;
}

const ratio = (n: number, d: number): number | null => (d === 0 ? null : Math.round((n / d) * 10_000) / 10_000);

/** The figures of rows and their answers, index by index; no row is ever left out of a denominator. */
export function figures(rows: readonly ScoredRow[], answers: readonly Answer[]): Figures {
  const f = { rows: rows.length, failed: 0, ambiguous: 0, with_truth: 0, matched: 0, matched_right: 0, found: 0 };
  let inCandidates = 0;
  rows.forEach((row, k) => {
    const answer = answers[k] ?? null;
    const hasTruth = row.truth !== '';
    if (answer === null) f.failed++;
    if (hasTruth ? row.accepted.size > 1 : row.accepted.size > 0) f.ambiguous++;
    if (hasTruth) f.with_truth++;
    if (answer?.match) {
      f.matched++;
      const right = row.accepted.has(answer.match);
      if (right) f.matched_right++;
      if (right && hasTruth) f.found++;
    }
    if (hasTruth && answer?.candidates.some((c) => row.accepted.has(c))) inCandidates++;
  });
  return {
    ...f,
    truth_in_candidates: inCandidates,
    precision: ratio(f.matched_right, f.matched),
    recall: ratio(f.found, f.with_truth),
    candidates_share: ratio(inCandidates, f.with_truth),
  };
}

export interface Score {
  overall: Figures;
  kinds: Record<string, Figures>;
  /** Of each call of up to 100 queries, in ms. */
  call_ms: Percentiles;
  /** The quality targets missed overall (the gate), in words. */
  missed: string[];
  call_p95_met: boolean;
}

/** Figures per kind (in the order met) and overall, the calls' latency, and the targets missed. */
export function score(rows: readonly ScoredRow[], answers: readonly Answer[], callMs: readonly number[]): Score {
  const kinds: Record<string, Figures> = {};
  for (const kind of new Set(rows.map((r) => r.kind))) {
    const at = rows.flatMap((r, k) => (r.kind === kind ? [k] : []));
    kinds[kind] = figures(
      at.map((k) => rows[k]!),
      at.map((k) => answers[k] ?? null),
    );
  }
  const overall = figures(rows, answers);
  const missed: string[] = [];
  const below = (name: string, got: number | null, target: number): void => {
    if (got === null || got < target) missed.push(`${name} ${got ?? 'none'} < ${target}`);
  };
  below('precision', overall.precision, PRECISION_TARGET);
  below('recall', overall.recall, RECALL_TARGET);
  below('truth among candidates', overall.candidates_share, CANDIDATES_TARGET);
  const call_ms = percentiles(callMs);
  return { overall, kinds, call_ms, missed, call_p95_met: call_ms.p95 <= CALL_P95_TARGET_MS };
}
