// The batch-matching benchmark's arithmetic (docs/benchmarks.md, "Batch matching") on answers made up here: which
// matches are right, what each denominator holds, and which quality targets a run misses.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { figures, score, type Answer, type ScoredRow } from '../bench/match-score.js';

const row = (kind: string, truth: string, ...twins: string[]): ScoredRow => ({
  kind,
  truth,
  accepted: new Set(truth === '' ? twins : [truth, ...twins]),
});
const answer = (match: string | null, ...candidates: string[]): Answer => ({ match, candidates });

describe('match benchmark figures', () => {
  it('count a negative matched against precision, and never drop a row from a denominator', () => {
    const rows = [row('exact', 'A'), row('exact', 'B'), row('exact', 'C'), row('negative', ''), row('exact', 'D')];
    const answers = [answer('A', 'A'), answer('X', 'X', 'B'), answer(null), answer('Y', 'Y'), null];
    const f = figures(rows, answers);
    assert.equal(f.rows, 5);
    assert.equal(f.failed, 1);
    assert.equal(f.with_truth, 4);
    assert.equal(f.matched, 3, 'A, X and the negative Y');
    assert.equal(f.matched_right, 1);
    assert.equal(f.precision, 0.3333);
    assert.equal(f.recall, 0.25, 'the failed call stays in the denominator');
    assert.equal(f.truth_in_candidates, 2);
    assert.equal(f.candidates_share, 0.5);
  });

  it('take a twin of the same normalized name and city as right, and count the row ambiguous', () => {
    const rows = [row('typo1', 'A', 'A2'), row('negative', '', 'N1'), row('negative', '')];
    const f = figures(rows, [answer('A2', 'A2'), answer('N1', 'N1'), answer(null)]);
    assert.equal(f.ambiguous, 2);
    assert.equal(f.matched_right, 2);
    assert.equal(f.found, 1, 'recall counts rows with a truth only');
    assert.equal(f.precision, 1);
    assert.equal(f.recall, 1);
  });

  it('score each kind apart and gate on the overall figures only', () => {
    const rows = [...Array.from({ length: 99 }, (_, k) => row('exact', `E${k}`)), row('zip', 'Z')];
    const answers = rows.map((r) => answer(r.truth, r.truth));
    const all = score(rows, answers, [100, 200, 300]);
    assert.deepEqual(Object.keys(all.kinds), ['exact', 'zip']);
    assert.deepEqual(all.missed, []);
    assert.equal(all.call_ms.p95, 300);
    assert.ok(all.call_p95_met);

    // One miss in a hundred: recall 0.99 meets 0.95, and the truth is still among the candidates.
    answers[99] = answer(null, 'Z');
    assert.deepEqual(score(rows, answers, [1]).missed, []);
    // Three wrong matches, two of them with the truth among the candidates: precision 0.97 misses 0.98.
    const wrong = [...answers];
    wrong[0] = answer('W0', 'W0', 'E0');
    wrong[1] = answer('W1', 'W1', 'E1');
    wrong[99] = answer('W', 'W');
    const imprecise = score(rows, wrong, [1]);
    assert.equal(imprecise.kinds.zip!.precision, 0);
    assert.deepEqual([imprecise.overall.precision, imprecise.overall.recall], [0.97, 0.97]);
    assert.equal(imprecise.overall.candidates_share, 0.99);
    assert.deepEqual(
      imprecise.missed.map((m) => m.split(' ')[0]),
      ['precision'],
    );
    // Six rows unmatched, their truth among the candidates: precision 1, recall 0.94 misses 0.95.
    const shy = rows.map((r, k) => (k < 6 ? answer(null, r.truth) : answer(r.truth, r.truth)));
    assert.deepEqual(
      score(rows, shy, [1]).missed.map((m) => m.split(' ')[0]),
      ['recall'],
    );
  });

  it('misses every target when nothing was answered', () => {
    const s = score([row('exact', 'A'), row('negative', '')], [null, null], []);
    assert.equal(s.overall.precision, null);
    assert.equal(s.missed.length, 3);
  });
});
