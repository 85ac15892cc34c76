// The exports' worker (docs/exports.md, "How an export runs"): every API instance and `registry worker` runs one,
// beside the match jobs' (the same MATCH_JOB_SLOTS). It claims the oldest open export no live worker holds, reads
// its list page by page through the list's own cursor (a walk pinned to the dataset of its first page), writes the
// rows a chunk at a time (commitChunk makes each final and charges it) and finishes it. A CSV or JSON lines export
// resumes where its last committed chunk ended; a Parquet one, whose footer lists every row group, starts again
// (the credits already taken are not taken again).
import type pg from 'pg';
import { claimOldest, releaseClaims } from '../jobs/work-table.js';
import { startWorkLoop, type Worker } from '../jobs/worker-loop.js';
import { commitChunk, type Claimed } from './chunk.js';
import { finishExport } from './finish.js';
import { fileWriter, type Column, type Row } from './formats.js';

/** Rows written and committed together: a part of some hundreds of kilobytes, and one short transaction. */
const CHUNK_ROWS = 5_000;

/** A page of an export's list: its rows, the exact total, and the next page's cursor (null at the end). */
interface ListPage {
  readonly rows: Row[];
  readonly total: number;
  readonly next: string | null;
}

export interface ExportWorkerDeps {
  readonly pool: pg.Pool;
  /** The page of `operation` at `cursor` (null: the first) with `params`, for the export `exportId`. */
  readonly readPage: (
    operation: string,
    params: Record<string, unknown>,
    cursor: string | null,
    exportId: string,
  ) => Promise<ListPage>;
  /** Rows a chunk (CHUNK_ROWS by default; tests take fewer, to stop a worker between chunks). */
  readonly chunkRows?: number;
  /** The columns of the operation's rows, in order. */
  readonly columns: (operation: string) => readonly Column[];
  /** This process's instance number: its lock tells the others it is alive (src/db/instance.ts). */
  readonly worker: number;
  readonly now: () => Date;
  readonly log: (line: string) => void;
}

async function claim(deps: ExportWorkerDeps): Promise<Claimed | null> {
  const job = await claimOldest<Claimed>(
    deps.pool,
    'exports',
    deps.worker,
    deps.now(),
    `w.id, w.workspace_id, w.key_id, w.operation, w.params, w.format, w.done_rows::float8 AS done_rows, w.credits,
     w.parts, w.next_cursor`,
  );
  if (!job || job.format !== 'parquet' || job.parts === 0) return job;
  // A Parquet file cannot be taken up in the middle: its parts go, its credits stay.
  await deps.pool.query('DELETE FROM export_parts WHERE export_id = $1', [job.id]);
  await deps.pool.query(
    'UPDATE exports SET done_rows = 0, parts = 0, bytes = 0, next_cursor = NULL WHERE id = $1 AND claimed_by = $2',
    [job.id, deps.worker],
  );
  return { ...job, done_rows: 0, parts: 0, next_cursor: null };
}

/** Writes the claimed export chunk by chunk until it is done, stopped or unpaid. */
async function runExport(deps: ExportWorkerDeps, job: Claimed, stopping: () => boolean): Promise<void> {
  const writer = fileWriter(job.format, deps.columns(job.operation), job.parts > 0);
  let at = { doneRows: job.done_rows, parts: job.parts };
  let cursor = job.next_cursor;
  for (;;) {
    if (stopping()) return;
    const rows: Row[] = [];
    let page: ListPage;
    do {
      page = await deps.readPage(job.operation, job.params, cursor, job.id);
      rows.push(...page.rows);
      cursor = page.next;
    } while (cursor && rows.length < (deps.chunkRows ?? CHUNK_ROWS));
    const bytes = rows.length > 0 ? await writer.chunk(rows) : Buffer.alloc(0);
    const chunk = { bytes, rows: rows.length, total: page.total, next: cursor };
    const outcome = await commitChunk(deps.pool, job, deps.worker, at, chunk, deps.now());
    if (outcome.kind === 'stopped') return;
    const end = { parts: at.parts + (bytes.length > 0 ? 1 : 0), tail: Buffer.alloc(0) };
    if (outcome.kind === 'unpaid') return finishExport(deps.pool, job, deps.worker, end, deps.now(), outcome.outcome);
    at = { doneRows: at.doneRows + rows.length, parts: end.parts };
    if (!cursor)
      return finishExport(deps.pool, job, deps.worker, { ...end, tail: await writer.end() }, deps.now(), null);
  }
}

/** Runs `slots` export loops in this process. */
export function startExportWorker(deps: ExportWorkerDeps, slots: number): Worker {
  return startWorkLoop(
    {
      name: 'export',
      claim: () => claim(deps),
      run: (job, stopping) => runExport(deps, job, stopping),
      release: () => releaseClaims(deps.pool, 'exports', deps.worker),
      log: deps.log,
    },
    slots,
  );
}
