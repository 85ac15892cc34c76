// A workspace's keys as its members (and the operator) change them: create, rename, roll, revoke, each with its
// audit entry in the same transaction; and the keys page's view of them with this month's usage per key.
import type pg from 'pg';
import type { Clock } from '../clock.js';
import { inTransaction } from '../db/pool.js';
import { recordAudit, type Actor } from './audit.js';
import { base62, hashKey, keyHint, newKey, type KeyKind } from './keys.js';

/**
 * How long a rolled key's previous secret keeps working, as a member chooses it: at once for a leak, an hour for a
 * quick redeploy, a day or a week for clients deployed on a schedule. Longer would keep a leaked secret alive.
 */
export const ROLL_GRACES = { none: 0, '1h': 3_600, '24h': 86_400, '7d': 604_800 } as const;
export type RollGrace = keyof typeof ROLL_GRACES;

const iso = (column: string): string => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`;

export interface KeyView {
  id: string;
  kind: KeyKind;
  hint: string;
  name: string | null;
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
  /** The previous secret of a rolled key while it still works, and until when. */
  previous_hint: string | null;
  previous_until: string | null;
  /** This UTC month: every request made with the key, and the credits it kept. */
  requests: number;
  credits: number;
}

/** The workspace's keys, oldest first, with this month's usage from the daily usage rows (one per key and day). */
export async function keysWithUsage(pool: pg.Pool, workspaceId: string, now: Date): Promise<KeyView[]> {
  const { rows } = await pool.query<KeyView>(
    `SELECT k.id, k.kind, k.hint, k.name, ${iso('k.created_at')} AS created_at, ${iso('k.revoked_at')} AS revoked_at,
            ${iso('k.last_used_at')} AS last_used_at,
            CASE WHEN k.previous_until > $2 THEN k.previous_hint END AS previous_hint,
            CASE WHEN k.previous_until > $2 THEN ${iso('k.previous_until')} END AS previous_until,
            coalesce(u.requests, 0)::int AS requests, coalesce(u.credits, 0)::int AS credits
     FROM api_keys k
     LEFT JOIN (SELECT key_id, sum(requests) AS requests, sum(credits) AS credits FROM usage_days
                WHERE workspace_id = $1 AND day >= month_start($2) GROUP BY key_id) u ON u.key_id = k.id
     WHERE k.workspace_id = $1
     ORDER BY k.created_at, k.id`,
    [workspaceId, now],
  );
  return rows;
}

export interface NewSecret {
  readonly id: string;
  /** The raw key: shown once, never stored. */
  readonly key: string;
}

/** A new key of the workspace, named; recorded as `key.create`. */
export async function addKey(
  pool: pg.Pool,
  workspaceId: string,
  kind: KeyKind,
  name: string | null,
  pepper: string,
  clock: Clock,
  actor: Actor,
): Promise<NewSecret> {
  const key = newKey(kind);
  const id = `key_${base62(16)}`;
  const now = clock.now();
  await inTransaction(pool, async (client) => {
    await client.query(
      `INSERT INTO api_keys (id, workspace_id, kind, hash, hint, created_at, name) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [id, workspaceId, kind, hashKey(key, pepper), keyHint(key), now, name],
    );
    await recordAudit(client, { workspaceId, actor, action: 'key.create', target: id, detail: name, at: now });
  });
  return { id, key };
}

/** Renames an active key of the workspace; false when it has no such key. */
export async function renameKey(
  pool: pg.Pool,
  workspaceId: string,
  keyId: string,
  name: string,
  clock: Clock,
  actor: Actor,
): Promise<boolean> {
  const now = clock.now();
  return inTransaction(pool, async (client) => {
    const { rowCount } = await client.query(
      'UPDATE api_keys SET name = $3 WHERE id = $1 AND workspace_id = $2 AND revoked_at IS NULL',
      [keyId, workspaceId, name],
    );
    if (rowCount !== 1) return false;
    await recordAudit(client, { workspaceId, actor, action: 'key.rename', target: keyId, detail: name, at: now });
    return true;
  });
}

/**
 * Gives an active key a new secret, keeping its id, name, kind and usage. The previous secret keeps authenticating
 * for the grace (none: it stops at once); a secret rolled away earlier and still in its grace stops now, so a key has
 * at most two working secrets. Null when the workspace has no such active key.
 */
export async function rollKey(
  pool: pg.Pool,
  workspaceId: string,
  keyId: string,
  grace: RollGrace,
  pepper: string,
  clock: Clock,
  actor: Actor,
): Promise<NewSecret | null> {
  const now = clock.now();
  const seconds = ROLL_GRACES[grace];
  return inTransaction(pool, async (client) => {
    const { rows } = await client.query<{ kind: KeyKind }>(
      'SELECT kind FROM api_keys WHERE id = $1 AND workspace_id = $2 AND revoked_at IS NULL FOR UPDATE',
      [keyId, workspaceId],
    );
    if (!rows[0]) return null;
    const key = newKey(rows[0].kind);
    await client.query(
      `UPDATE api_keys
       SET previous_hash = CASE WHEN $3::int > 0 THEN hash END, previous_hint = CASE WHEN $3::int > 0 THEN hint END,
           previous_until = CASE WHEN $3::int > 0 THEN $2::timestamptz + make_interval(secs => $3::int) END,
           hash = $4, hint = $5
       WHERE id = $1`,
      [keyId, now, seconds, hashKey(key, pepper), keyHint(key)],
    );
    await recordAudit(client, {
      workspaceId,
      actor,
      action: 'key.roll',
      target: keyId,
      detail: `previous secret works for ${grace === 'none' ? 'no time' : grace}`,
      at: now,
    });
    return { id: keyId, key };
  });
}

/**
 * Revokes an active key (both its secrets), of this workspace when one is given (the web app), of any for the
 * operator; false when there is no such active key.
 */
export async function revokeKeyAs(
  pool: pg.Pool,
  workspaceId: string | null,
  keyId: string,
  clock: Clock,
  actor: Actor,
): Promise<boolean> {
  const now = clock.now();
  return inTransaction(pool, async (client) => {
    const { rows } = await client.query<{ workspace_id: string }>(
      `UPDATE api_keys SET revoked_at = $3
       WHERE id = $1 AND ($2::text IS NULL OR workspace_id = $2) AND revoked_at IS NULL RETURNING workspace_id`,
      [keyId, workspaceId, now],
    );
    if (!rows[0]) return false;
    await recordAudit(client, {
      workspaceId: rows[0].workspace_id,
      actor,
      action: 'key.revoke',
      target: keyId,
      at: now,
    });
    return true;
  });
}
