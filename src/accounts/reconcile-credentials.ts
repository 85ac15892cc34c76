// Reconciliation credentials (docs/reconciliation.md, "The credential"): OpenRefine sends no header, so the service
// URL carries a token, good for the reconciliation routes only. `svc_rec_` and 32 base-62 characters; only its
// HMAC-SHA256 under the server's pepper is stored (as API keys), the raw token is shown once. Created, listed and
// revoked by the workspace (its owner in the web app, a live key, the operator), each change in the audit log.
import type pg from 'pg';
import type { Clock } from '../clock.js';
import { inTransaction } from '../db/pool.js';
import { recordAudit, type Actor } from './audit.js';
import { base62, hashKey } from './keys.js';

const TOKEN_PREFIX = 'svc_rec_';
const TOKEN_FORMAT = /^svc_rec_[0-9A-Za-z]{32}$/;

/** A workspace's working credentials at most: enough for a team's projects, few enough to review on one page. */
const MAX_RECONCILE_CREDENTIALS = 25;

/** A name is for people to tell credentials apart: a line, not a document. */
export const MAX_CREDENTIAL_NAME = 100;

const iso = (column: string): string => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`;

export interface ReconcileCredentialView {
  id: string;
  name: string | null;
  hint: string;
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
}

/** Who a token is: the credential and its workspace. */
export interface ReconcileIdentity {
  readonly id: string;
  readonly workspaceId: string;
}

const isReconcileToken = (s: string): boolean => TOKEN_FORMAT.test(s);

/**
 * A log line with every reconciliation credential blanked: a token wherever it stands, and whatever follows
 * `/reconcile/` in an address (a mistyped token is still most of one). Logs are read by more people than own tokens.
 */
export const redactReconcileTokens = (line: string): string =>
  line
    .replace(/svc_rec_[0-9A-Za-z]*/g, 'svc_rec_[redacted]')
    .replace(/\/reconcile\/[^/?#\s"\\]+/g, '/reconcile/[redacted]');

/** What a credential is listed as: its prefix, four characters and its last four, never enough to use it. */
const tokenHint = (token: string): string => `${token.slice(0, TOKEN_PREFIX.length + 4)}…${token.slice(-4)}`;

/** The workspace's credentials, oldest first, revoked ones included (with when). */
export async function listReconcileCredentials(pool: pg.Pool, workspaceId: string): Promise<ReconcileCredentialView[]> {
  const { rows } = await pool.query<ReconcileCredentialView>(
    `SELECT id, name, hint, ${iso('created_at')} AS created_at, ${iso('revoked_at')} AS revoked_at,
            ${iso('last_used_at')} AS last_used_at
     FROM reconcile_credentials WHERE workspace_id = $1 ORDER BY created_at, id`,
    [workspaceId],
  );
  return rows;
}

/** A refusal of a change, in words for the one who asked: `forbidden` to a member who is not the owner. */
export class CredentialRefusal extends Error {
  constructor(
    readonly kind: 'bad_request' | 'forbidden',
    message: string,
  ) {
    super(message);
  }
}

/** A member in the web app changes credentials only as the workspace's owner (keys and the operator always may). */
async function refuseNonOwner(c: pg.PoolClient, workspaceId: string, actor: Actor): Promise<void> {
  if (actor.kind !== 'user') return;
  const { rowCount } = await c.query(
    `SELECT 1 FROM workspace_members WHERE workspace_id = $1 AND user_id = $2 AND role = 'owner'`,
    [workspaceId, actor.id],
  );
  if (rowCount !== 1)
    throw new CredentialRefusal(
      'forbidden',
      "Only the workspace's owner creates and revokes reconciliation credentials.",
    );
}

/**
 * A new credential of the workspace; the raw token is in the answer only. Refused past MAX_RECONCILE_CREDENTIALS
 * working ones (counted under the workspace's row lock, so two at once cannot pass it).
 */
export async function createReconcileCredential(
  pool: pg.Pool,
  workspaceId: string,
  name: string | null,
  pepper: string,
  clock: Clock,
  actor: Actor,
): Promise<ReconcileCredentialView & { token: string }> {
  const token = `${TOKEN_PREFIX}${base62(32)}`;
  const id = `rcn_${base62(16)}`;
  const now = clock.now();
  await inTransaction(pool, async (c) => {
    const { rows } = await c.query<{ n: number }>(
      `SELECT (SELECT count(*)::int FROM reconcile_credentials WHERE workspace_id = w.id AND revoked_at IS NULL) AS n
       FROM workspaces w WHERE w.id = $1 FOR UPDATE`,
      [workspaceId],
    );
    if (!rows[0]) throw new CredentialRefusal('bad_request', `No workspace ${workspaceId}.`);
    await refuseNonOwner(c, workspaceId, actor);
    if (rows[0].n >= MAX_RECONCILE_CREDENTIALS)
      throw new CredentialRefusal(
        'bad_request',
        `A workspace holds at most ${MAX_RECONCILE_CREDENTIALS} working reconciliation credentials: revoke one first.`,
      );
    await c.query(
      `INSERT INTO reconcile_credentials (id, workspace_id, hash, hint, name, created_at)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [id, workspaceId, hashKey(token, pepper), tokenHint(token), name, now],
    );
    await recordAudit(c, { workspaceId, actor, action: 'reconcile.create', target: id, detail: name, at: now });
  });
  const created = (await listReconcileCredentials(pool, workspaceId)).find((r) => r.id === id)!;
  return { ...created, token };
}

/**
 * Revokes a working credential, of this workspace when one is given, of any for the operator; the credential as it
 * now stands, or null when there is no such working credential.
 */
export async function revokeReconcileCredential(
  pool: pg.Pool,
  workspaceId: string | null,
  id: string,
  clock: Clock,
  actor: Actor,
): Promise<ReconcileCredentialView | null> {
  const now = clock.now();
  return inTransaction(pool, async (c) => {
    if (workspaceId) await refuseNonOwner(c, workspaceId, actor);
    const { rows } = await c.query<ReconcileCredentialView & { workspace_id: string }>(
      `UPDATE reconcile_credentials SET revoked_at = $3
       WHERE id = $1 AND ($2::text IS NULL OR workspace_id = $2) AND revoked_at IS NULL
       RETURNING workspace_id, id, name, hint, ${iso('created_at')} AS created_at, ${iso('revoked_at')} AS revoked_at,
                 ${iso('last_used_at')} AS last_used_at`,
      [id, workspaceId, now],
    );
    const row = rows[0];
    if (!row) return null;
    await recordAudit(c, { workspaceId: row.workspace_id, actor, action: 'reconcile.revoke', target: id, at: now });
    const { workspace_id: _workspace, ...view } = row;
    return view;
  });
}

/**
 * The working credential a token is, or null (not of the format, unknown, revoked). Its last use is written at most
 * once a minute, in the same statement. Whether its workspace may call is the gate's to say.
 */
export async function findReconcileCredential(
  pool: pg.Pool,
  token: string,
  pepper: string,
  now: Date,
): Promise<ReconcileIdentity | null> {
  if (!isReconcileToken(token)) return null;
  const { rows } = await pool.query<{ id: string; workspace_id: string }>(
    `WITH found AS (SELECT id, workspace_id, last_used_at FROM reconcile_credentials
                    WHERE hash = $1 AND revoked_at IS NULL),
          used AS (UPDATE reconcile_credentials r SET last_used_at = date_trunc('minute', $2::timestamptz)
                   FROM found f WHERE r.id = f.id
                     AND (f.last_used_at IS NULL OR f.last_used_at < date_trunc('minute', $2::timestamptz)))
     SELECT id, workspace_id FROM found`,
    [hashKey(token, pepper), now],
  );
  const row = rows[0];
  return row ? { id: row.id, workspaceId: row.workspace_id } : null;
}
