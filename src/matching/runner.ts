// The match jobs' worker (docs/matching.md, "Jobs"): every API instance and `registry worker` runs one. It claims
// the oldest open job no live worker holds, matches its rows a chunk at a time in order (commitChunk makes each
// final and charges it; the next is matched meanwhile), and finishes it: completed, or failed when the balance runs
// out. Jobs run one at a time a process (MATCH_JOB_SLOTS), at most two chunks' searches a few at once, so the API's
// own requests keep their latency.
import type pg from 'pg';
import type { MatchAnswer, MatchQuery } from '../search/index.js';
import { isQueryCanceled } from '../db/pool.js';
import { commitChunk, type ChunkResult } from './chunk.js';
import { finishJob } from './finish.js';
import { claimOldest, releaseClaims } from '../jobs/work-table.js';
import { startWorkLoop, type Worker } from '../jobs/worker-loop.js';

/** Rows matched and committed together: a matcher call's most, and one short transaction. */
const CHUNK_ROWS = 100;
/**
 * Chunks read and matched ahead of the one committing: two keep the matcher's searches going through a chunk's serial
 * steps (its words, its records, its scores, its commit) at twice a chunk's searches at once at most.
 */
const CHUNKS_IN_FLIGHT = 2;
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
  if (answer.error) return { match: false, candidate: null, error: answer.error };
  const best = answer.candidates[0];
  if (!best) return { match: false, candidate: null };
  const grades = Object.fromEntries(Object.entries(best.features).map(([f, s]) => [f, s.grade]));
  const { features: _features, match, ...candidate } = best;
  return { match, candidate: { ...candidate, grades } };
}

/** What a row answers when its whole call failed on the statement timeout: no query of it could be answered. */
const TIMED_OUT: MatchAnswer['results'][number] = {
  reference: null,
  match: null,
  candidates: [],
  error: 'query_timeout',
};

/**
 * The distinct rows' results, in order. A row whose search the statement timeout stopped beside the chunk's others
 * is matched again alone, once: it may only have waited on them. Still stopped, it is answered so, and not charged.
 */
async function matchRows(
  deps: JobWorkerDeps,
  job: Claimed,
  asked: readonly string[],
): Promise<Array<ChunkResult['result']>> {
  const queries = asked.map((k) => JSON.parse(k) as MatchQuery);
  const opts = { limit: 1, algorithm: job.algorithm };
  const answers = await matchOrTimedOut(deps, queries, opts);
  for (const [i, a] of answers.entries()) {
    if (a.error && queries.length > 1) answers[i] = (await matchOrTimedOut(deps, [queries[i]!], opts))[0]!;
  }
  return answers.map(rowResult);
}

/** The matcher's results for `queries`; every one timed out when the matcher failed for that reason. */
async function matchOrTimedOut(
  deps: JobWorkerDeps,
  queries: readonly MatchQuery[],
  opts: { limit: number; algorithm: string },
): Promise<Array<MatchAnswer['results'][number]>> {
  try {
    return (await deps.match(queries, opts)).results;
  } catch (err) {
    if (!isQueryCanceled(err)) throw err;
    return queries.map(() => TIMED_OUT);
  }
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
  const keys = rows.map((r) => matchKey(r.input));
  // Taken now: the chunk matched beside this one may clear `seen` meanwhile.
  const found = new Map(keys.flatMap((k) => (seen.has(k) ? [[k, seen.get(k)!] as const] : [])));
  const asked = [...new Set(keys.filter((k) => !found.has(k)))];
  if (asked.length > 0) {
    const results = await matchRows(deps, job, asked);
    if (seen.size + asked.length > SEEN_ROWS) seen.clear();
    results.forEach((result, i) => {
      found.set(asked[i]!, result);
      seen.set(asked[i]!, result);
    });
  }
  return rows.map((r, i) => {
    const result = found.get(keys[i]!)!;
    return { rowNo: r.row_no, result, matched: result.match === true, charged: result.error === undefined };
  });
}

/** The next chunk's rows after row `after`, in order. */
async function readChunk(
  deps: JobWorkerDeps,
  job: Claimed,
  after: number,
): Promise<Array<{ row_no: number; input: MatchQuery }>> {
  const { rows } = await deps.pool.query<{ row_no: number; input: MatchQuery }>(
    'SELECT row_no, input FROM match_job_rows WHERE job_id = $1 AND row_no > $2 ORDER BY row_no LIMIT $3',
    [job.id, after, CHUNK_ROWS],
  );
  return rows;
}

/** A chunk read and matched, not yet committed: its row count, and its results (null past the last row). */
interface Pending {
  readonly rows: number;
  readonly results: Promise<ChunkResult[] | null>;
}

/**
 * Matches the claimed job until it is done, stopped or unpaid. Chunks are committed one at a time in order, but the
 * next is read and matched while one commits and while the matcher works through a chunk's last searches, its
 * records and its scores alone (CHUNKS_IN_FLIGHT): a chunk matched and never committed is simply not charged.
 */
async function runJob(deps: JobWorkerDeps, job: Claimed, stopping: () => boolean): Promise<void> {
  const seen = new Map<string, ChunkResult['result']>();
  let from = job.done_rows;
  let readTo = from;
  const queue: Pending[] = [];
  const fill = async (): Promise<void> => {
    while (queue.length < CHUNKS_IN_FLIGHT && queue.at(-1)?.rows !== 0) {
      const rows = await readChunk(deps, job, readTo);
      readTo += rows.length;
      const results = rows.length === 0 ? Promise.resolve(null) : chunkResults(deps, job, rows, seen);
      // Failures surface when the chunk's turn comes; a chunk left behind (stopped) must not reject unheard.
      results.catch(() => {});
      queue.push({ rows: rows.length, results });
    }
  };
  // One fill at a time: each reads from where the last one stopped.
  let filling = Promise.resolve();
  try {
    for (;;) {
      if (stopping()) return;
      await (filling = filling.then(fill));
      const chunk = queue.shift()!;
      const results = await chunk.results;
      if (results === null) return await finishJob(deps.pool, job, deps.worker, deps.now(), null);
      filling = filling.then(fill);
      const outcome = await commitChunk(
        deps.pool,
        { id: job.id, workspace: job.workspace_id, keyId: job.key_id },
        deps.worker,
        from,
        results,
        deps.now(),
      );
      if (outcome.kind === 'stopped') return;
      if (outcome.kind === 'unpaid') return await finishJob(deps.pool, job, deps.worker, deps.now(), outcome.outcome);
      from += chunk.rows;
    }
  } finally {
    // The reads and searches of chunks never committed end before the job lets go of the pool.
    await filling.catch(() => {});
    await Promise.allSettled(queue.map((c) => c.results));
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
