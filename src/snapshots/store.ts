// The snapshots table (docs/contract.md, "Bulk snapshots"; src/db/migrations/025_snapshots.sql): a row per dataset
// version, begun by the worker that reads it and completed with its files' manifest; read by the API newest first.
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { RecordsAt, RecordTable } from '../registry/feed/records.js';

/** One file of a snapshot as its manifest lists it. */
export interface SnapshotFile {
  readonly name: string;
  readonly table: RecordTable;
  readonly format: 'jsonl' | 'parquet';
  readonly rows: number;
  readonly bytes: number;
  readonly sha256: string;
}

/** A completed snapshot: where it stands in the dataset and the feed, and its files. */
export interface Snapshot {
  readonly id: string;
  readonly dataset_version: number;
  readonly last_sequence: number;
  readonly imported_at: string | null;
  readonly newest_file_date: string | null;
  readonly created_at: string;
  readonly files: SnapshotFile[];
}

const newSnapshotId = (): string => `sn_${randomBytes(12).toString('hex')}`;

const iso = (column: string): string => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`;

const COLUMNS = `id, dataset_version, last_sequence, ${iso('imported_at')} AS imported_at,
  newest_file_date::text AS newest_file_date, ${iso('completed_at')} AS created_at, files`;

/** The dataset's version when no completed snapshot holds it yet (and something was imported), else null. */
export async function versionToSnapshot(pool: pg.Pool): Promise<number | null> {
  const { rows } = await pool.query<{ version: number }>(
    `SELECT d.version FROM dataset_state d
     WHERE d.last_import_at IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM snapshots s WHERE s.dataset_version = d.version AND s.status = 'completed')`,
  );
  return rows[0]?.version ?? null;
}

/**
 * Begins the snapshot of `at` (the same row, and id, when a worker that died had begun it), or null when it is
 * completed already. Rows begun for other versions are dropped (the dataset has moved on): their ids are returned,
 * for their files to go.
 */
export async function beginSnapshot(
  pool: pg.Pool,
  at: RecordsAt,
  now: Date,
): Promise<{ id: string; dropped: string[] } | null> {
  const { rows } = await pool.query<{ id: string }>(
    `INSERT INTO snapshots (id, dataset_version, last_sequence, imported_at, newest_file_date, status, started_at)
     VALUES ($1, $2, $3, $4, $5, 'running', $6)
     ON CONFLICT (dataset_version) DO UPDATE SET started_at = excluded.started_at WHERE snapshots.status = 'running'
     RETURNING id`,
    [newSnapshotId(), at.version, at.lastSequence, at.importedAt, at.newestFileDate, now],
  );
  // No row: the version's snapshot is completed.
  if (!rows[0]) return null;
  const { rows: dropped } = await pool.query<{ id: string }>(
    "DELETE FROM snapshots WHERE status = 'running' AND dataset_version <> $1 RETURNING id",
    [at.version],
  );
  return { id: rows[0]!.id, dropped: dropped.map((d) => d.id) };
}

export async function completeSnapshot(pool: pg.Pool, id: string, files: SnapshotFile[], now: Date): Promise<void> {
  await pool.query(`UPDATE snapshots SET status = 'completed', files = $2, completed_at = $3 WHERE id = $1`, [
    id,
    JSON.stringify(files),
    now,
  ]);
}

/** Deletes the completed snapshots but the newest `kept`; answers the ids of those left. */
export async function keepNewest(pool: pg.Pool, kept: number): Promise<string[]> {
  await pool.query(
    `DELETE FROM snapshots WHERE status = 'completed' AND dataset_version NOT IN
       (SELECT dataset_version FROM snapshots WHERE status = 'completed' ORDER BY dataset_version DESC LIMIT $1)`,
    [kept],
  );
  const { rows } = await pool.query<{ id: string }>('SELECT id FROM snapshots');
  return rows.map((r) => r.id);
}

/** The completed snapshots, newest first. */
export async function listSnapshots(pool: pg.Pool): Promise<Snapshot[]> {
  const { rows } = await pool.query<Snapshot>(
    `SELECT ${COLUMNS} FROM snapshots WHERE status = 'completed' ORDER BY dataset_version DESC`,
  );
  return rows;
}

/** A completed snapshot by id, or the newest when `id` is null; null when there is none. */
export async function getSnapshot(pool: pg.Pool, id: string | null): Promise<Snapshot | null> {
  const { rows } = await pool.query<Snapshot>(
    `SELECT ${COLUMNS} FROM snapshots WHERE status = 'completed' AND ($1::text IS NULL OR id = $1)
     ORDER BY dataset_version DESC LIMIT 1`,
    [id],
  );
  return rows[0] ?? null;
}
