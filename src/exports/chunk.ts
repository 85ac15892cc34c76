// One chunk of an export made final (docs/exports.md, "How an export runs"): in one transaction, the export still
// this worker's and where the chunk begins, the credits its rows bring due taken through the gate's own function,
// the chunk's bytes written as the next part, and the progress and the next page's cursor moved. Killed before the
// commit, the chunk is the next worker's, uncharged; after it, done: no row is written or charged twice.
import type pg from 'pg';
import { chargeBatch, Unpaid } from '../accounts/batch-charge.js';
import { EXPORT_ROWS_PER_CREDIT } from '../accounts/catalog.js';
import { inTransaction } from '../db/pool.js';

export interface Claimed {
  readonly id: string;
  readonly workspace_id: string;
  readonly key_id: string | null;
  readonly operation: string;
  readonly params: Record<string, unknown>;
  readonly format: 'csv' | 'jsonl' | 'parquet';
  readonly done_rows: number;
  readonly credits: number;
  readonly parts: number;
  readonly next_cursor: string | null;
}

/** What a chunk brings: its bytes, its rows, the list's total and the cursor after it (null: the list's end). */
export interface Chunk {
  readonly bytes: Buffer;
  readonly rows: number;
  readonly total: number;
  readonly next: string | null;
}

export type ChunkOutcome =
  { readonly kind: 'done' } | { readonly kind: 'stopped' } | { readonly kind: 'unpaid'; readonly outcome: string };

/** Credits due for `rows` rows written: one for each started block (the catalog's EXPORT_ROWS_PER_CREDIT). */
const creditsFor = (rows: number): number => Math.ceil(rows / EXPORT_ROWS_PER_CREDIT);

/** The ledger entries' request id for an export's n-th credit. */
const creditCharge = (exportId: string, n: number): string => `${exportId}:${n}`;

export async function commitChunk(
  pool: pg.Pool,
  job: Claimed,
  worker: number,
  at: { readonly doneRows: number; readonly parts: number },
  chunk: Chunk,
  now: Date,
): Promise<ChunkOutcome> {
  return inTransaction<ChunkOutcome>(pool, async (client) => {
    const { rows } = await client.query<{ ok: boolean; credits: number }>(
      `SELECT status = 'running' AND claimed_by = $2 AND done_rows = $3 AND parts = $4 AS ok, credits
       FROM exports WHERE id = $1 FOR UPDATE`,
      [job.id, worker, at.doneRows, at.parts],
    );
    if (!rows[0]?.ok) return { kind: 'stopped' };
    const done = at.doneRows + chunk.rows;
    const taken = rows[0].credits;
    const due = Math.max(0, creditsFor(done) - taken);
    const ids = Array.from({ length: due }, (_, i) => creditCharge(job.id, taken + i + 1));
    await chargeBatch(client, { workspace: job.workspace_id, keyId: job.key_id }, ids, now);
    if (chunk.bytes.length > 0)
      await client.query('INSERT INTO export_parts (export_id, part, data) VALUES ($1, $2, $3)', [
        job.id,
        at.parts,
        chunk.bytes,
      ]);
    await client.query(
      `UPDATE exports SET done_rows = $2, credits = credits + $3, total_rows = $4, next_cursor = $5,
              parts = parts + $6, bytes = bytes + $7
       WHERE id = $1`,
      [job.id, done, due, chunk.total, chunk.next, chunk.bytes.length > 0 ? 1 : 0, chunk.bytes.length],
    );
    return { kind: 'done' };
  }).catch((err: unknown) => {
    if (err instanceof Unpaid) return { kind: 'unpaid', outcome: err.outcome };
    throw err;
  });
}
