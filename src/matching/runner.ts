// The match jobs' worker (docs/matching.md, "Jobs"): every API instance and `registry worker` runs one. It claims
// the oldest open job no live worker holds, matches its rows a chunk at a time in order (commitChunk makes each
// final and charges it), and finishes it: completed, or failed when the balance runs out. Jobs run one at a time
// a process (MATCH_JOB_SLOTS), each chunk's searches a few at once, so the API's own requests keep their latency.
import type pg from 'pg';
import type { MatchAnswer, MatchQuery } from '../search/index.js';
import { commitChunk, type ChunkResult } from './chunk.js';
import { finishJob } from './finish.js';
import { claimOldest, releaseClaims } from '../jobs/work-table.js';
import { startWorkLoop, type Worker } from '../jobs/worker-loop.js';

/** Rows matched and committed together: a matcher call's most, and one short transaction. */
const CHUNK_ROWS = 100;
/** Distinct rows a job remembers the results of (some 10 MB): a list's nearby repeats are matched once. */
const SEEN_ROWS = 10_000;

export interface JobWorkerDeps {
  readonly pool: pg.Pool;
  readonly match: (queries: readonly MatchQuery[], opts: { limit: number; algorithm: string }) => Promise<MatchAnswer>;
  /** This process's instance number: its lock tells the others it is alive (src/db/instance.ts). */
  readonly worker: number;
  readonly now: () => Date;
  readonly log: (line: string) => void;
}

interface Claimed {
  id: string;
  workspace_id: string;
  key_id: string | null;
  algorithm: string;
  done_rows: number;
}

/** Claims the oldest open job whose worker is gone (or that none has yet), for `worker`. */
const claim = (deps: JobWorkerDeps): Promise<Claimed | null> =>
  claimOldest<Claimed>(
    deps.pool,
    'match_jobs',
    deps.worker,
    deps.now(),
    'w.id, w.workspace_id, w.key_id, w.algorithm, w.done_rows',
  );

/** A row's result as the job keeps it: the best candidate with its score, verdict and grades, or none. */
function rowResult(answer: MatchAnswer['results'][number]): Record<string, unknown> {
  const best = answer.candidates[0];
  if (!best) return { match: false, candidate: null };
  const grades = Object.fromEntries(Object.entries(best.features).map(([f, s]) => [f, s.grade]));
  const { features: _features, match, ...candidate } = best;
  return { match, candidate: { ...candidate, grades } };
}

/** What a row is matched on: its fields but its reference (rows of a list often repeat a company). */
const matchKey = ({ reference: _reference, ...fields }: MatchQuery): string => JSON.stringify(fields);

/** The results of a chunk's rows: each distinct row matched once, a row met before in the job not again. */
async function chunkResults(
  deps: JobWorkerDeps,
  job: Claimed,
  rows: ReadonlyArray<{ row_no: number; input: MatchQuery }>,
  seen: Map<string, ChunkResult['result']>,
): Promise<ChunkResult[]> {
  const asked = [...new Set(rows.map((r) => matchKey(r.input)).filter((k) => !seen.has(k)))];
  if (asked.length > 0) {
    const answer = await deps.match(
      asked.map((k) => JSON.parse(k) as MatchQuery),
      { limit: 1, algorithm: job.algorithm },
    );
    if (seen.size + asked.length > SEEN_ROWS) seen.clear();
    answer.results.forEach((a, i) => seen.set(asked[i]!, rowResult(a)));
  }
  return rows.map((r) => {
    const result = seen.get(matchKey(r.input))!;
    return { rowNo: r.row_no, result, matched: result.match === true };
  });
}

/** Matches the claimed job chunk by chunk until it is done, stopped or unpaid. */
async function runJob(deps: JobWorkerDeps, job: Claimed, stopping: () => boolean): Promise<void> {
  let from = job.done_rows;
  const seen = new Map<string, ChunkResult['result']>();
  for (;;) {
    if (stopping()) return;
    const { rows } = await deps.pool.query<{ row_no: number; input: MatchQuery }>(
      'SELECT row_no, input FROM match_job_rows WHERE job_id = $1 AND row_no > $2 ORDER BY row_no LIMIT $3',
      [job.id, from, CHUNK_ROWS],
    );
    if (rows.length === 0) return finishJob(deps.pool, job, deps.worker, deps.now(), null);
    const results = await chunkResults(deps, job, rows, seen);
    const outcome = await commitChunk(
      deps.pool,
      { id: job.id, workspace: job.workspace_id, keyId: job.key_id },
      deps.worker,
      from,
      results,
      deps.now(),
    );
    if (outcome.kind === 'stopped') return;
    if (outcome.kind === 'unpaid') return finishJob(deps.pool, job, deps.worker, deps.now(), outcome.outcome);
    from += rows.length;
  }
}

export type JobWorker = Worker;

/** Runs `slots` job loops in this process. */
export function startJobWorker(deps: JobWorkerDeps, slots: number): JobWorker {
  return startWorkLoop(
    {
      name: 'match job',
      claim: () => claim(deps),
      run: (job, stopping) => runJob(deps, job, stopping),
      release: () => releaseClaims(deps.pool, 'match_jobs', deps.worker),
      log: deps.log,
    },
    slots,
  );
}
