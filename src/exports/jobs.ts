// Exports as the API shows them, and their reads and changes (docs/exports.md). The worker's side is in runner.ts
// and chunk.ts; the file's parts in export_parts.
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { cancelOpen, workspacePage } from '../jobs/work-table.js';
import type { Format } from './formats.js';

export const EXPORT_STATUSES = ['queued', 'running', 'completed', 'failed', 'cancelled'] as const;

export interface Export {
  readonly id: string;
  readonly status: (typeof EXPORT_STATUSES)[number];
  readonly operation: string;
  readonly params: Record<string, unknown>;
  readonly format: Format;
  readonly total_rows: number | null;
  readonly done_rows: number;
  readonly credits: number;
  readonly bytes: number;
  readonly error: { readonly code: string; readonly message: string } | null;
  readonly created_at: string;
  readonly started_at: string | null;
  readonly finished_at: string | null;
}

const newExportId = (): string => `ex_${randomBytes(12).toString('hex')}`;

const iso = (column: string): string => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`;

const EXPORT_COLUMNS = `id, status, operation, params, format, total_rows::float8 AS total_rows,
  done_rows::float8 AS done_rows, credits, bytes::float8 AS bytes,
  CASE WHEN error_code IS NULL THEN NULL ELSE jsonb_build_object('code', error_code, 'message', error) END AS error,
  ${iso('created_at')} AS created_at, ${iso('started_at')} AS started_at, ${iso('finished_at')} AS finished_at`;

export interface NewExport {
  readonly workspace: string;
  readonly keyId: string | null;
  readonly userId: string | null;
  readonly operation: string;
  readonly params: Record<string, unknown>;
  readonly format: Format;
  readonly idempotencyKey: string | null;
}

/**
 * Creates the export; under an Idempotency-Key already used, answers the export it created instead (`created`
 * false), whose request the caller compares.
 */
export async function createExport(
  pool: pg.Pool,
  e: NewExport,
  now: Date,
): Promise<{ export: Export; created: boolean }> {
  const { rows } = await pool.query<Export>(
    `INSERT INTO exports (id, workspace_id, key_id, user_id, created_at, status, operation, params, format,
                          idempotency_key)
     VALUES ($1, $2, $3, $4, $5, 'queued', $6, $7, $8, $9)
     ON CONFLICT (workspace_id, idempotency_key) DO NOTHING
     RETURNING ${EXPORT_COLUMNS}`,
    [
      newExportId(),
      e.workspace,
      e.keyId,
      e.userId,
      now,
      e.operation,
      JSON.stringify(e.params),
      e.format,
      e.idempotencyKey,
    ],
  );
  if (rows[0]) return { export: rows[0], created: true };
  const { rows: earlier } = await pool.query<Export>(
    `SELECT ${EXPORT_COLUMNS} FROM exports WHERE workspace_id = $1 AND idempotency_key = $2`,
    [e.workspace, e.idempotencyKey],
  );
  return { export: earlier[0]!, created: false };
}

export async function getExport(pool: pg.Pool, workspace: string, id: string): Promise<Export | null> {
  const { rows } = await pool.query<Export>(
    `SELECT ${EXPORT_COLUMNS} FROM exports WHERE workspace_id = $1 AND id = $2`,
    [workspace, id],
  );
  return rows[0] ?? null;
}

/** A page of the workspace's exports, newest first, and how many it has. */
export async function listExports(
  pool: pg.Pool,
  workspace: string,
  page: { limit: number; offset: number },
): Promise<{ exports: Export[]; total: number }> {
  const { rows, total } = await workspacePage<Export>(pool, 'exports', EXPORT_COLUMNS, workspace, page);
  return { exports: rows, total };
}

/**
 * Cancels a queued or running export: its worker stops at its next chunk; the rows written stay charged, the file
 * is not offered. Null when the workspace has no such export; a finished one is answered as it is.
 */
export async function cancelExport(pool: pg.Pool, workspace: string, id: string, now: Date): Promise<Export | null> {
  await cancelOpen(pool, 'exports', workspace, id, now);
  return getExport(pool, workspace, id);
}
