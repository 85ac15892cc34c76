// Deleting a workspace or an account (docs/web.md, "Deleting"). What accounting and tax law has us keep stays: the
// credit ledger, checkouts, payments and billing documents (they name the workspace, never a password or a key).
// Everything else goes at once: keys stop, members and invitations go, monitoring stops; the request log follows its
// 30-day purge. An account's row is blanked (its id stays in the records it signed), never reused.
import type pg from 'pg';
import { inTransaction } from '../db/pool.js';
import { recordAudit, type Actor } from './audit.js';

/** The workspaces a user owns (deleted with the account). */
export async function ownedWorkspaces(pool: pg.Pool, userId: string): Promise<Array<{ id: string; name: string }>> {
  const { rows } = await pool.query<{ id: string; name: string }>(
    `SELECT w.id, w.name FROM workspace_members m JOIN workspaces w ON w.id = m.workspace_id
     WHERE m.user_id = $1 AND m.role = 'owner' AND w.deleted_at IS NULL ORDER BY w.created_at`,
    [userId],
  );
  return rows;
}

/**
 * Deletes a workspace whose plan was cancelled first (billing/plans.ts, cancelPlan): its keys and reconciliation
 * credentials revoked, its members, invitations, monitoring and sessions' choice of it removed, the workspace
 * suspended and marked deleted.
 */
export async function deleteWorkspace(pool: pg.Pool, workspaceId: string, now: Date, actor: Actor): Promise<void> {
  await inTransaction(pool, async (c) => {
    await recordAudit(c, {
      workspaceId,
      actor,
      action: 'workspace.delete',
      target: workspaceId,
      detail: null,
      at: now,
    });
    await c.query('UPDATE workspaces SET deleted_at = $2, suspended = true WHERE id = $1 AND deleted_at IS NULL', [
      workspaceId,
      now,
    ]);
    for (const table of ['api_keys', 'reconcile_credentials'])
      await c.query(`UPDATE ${table} SET revoked_at = $2 WHERE workspace_id = $1 AND revoked_at IS NULL`, [
        workspaceId,
        now,
      ]);
    for (const table of ['webhook_endpoints', 'watched_entities', 'saved_searches', 'invitations', 'workspace_members'])
      await c.query(`DELETE FROM ${table} WHERE workspace_id = $1`, [workspaceId]);
    await c.query('UPDATE web_sessions SET workspace_id = NULL WHERE workspace_id = $1', [workspaceId]);
  });
}

/**
 * Blanks an account whose own workspaces were deleted first: its address freed, no password, no second factor, no
 * session or mailed link left, out of every workspace.
 */
export async function deleteUser(pool: pg.Pool, userId: string, now: Date): Promise<void> {
  await inTransaction(pool, async (c) => {
    await c.query(
      `UPDATE users SET email = 'deleted-' || lower(id) || '@deleted.invalid', password_hash = '!', totp_secret = NULL,
         totp_enabled_at = NULL, totp_last_step = NULL, intended_plan = NULL, deleted_at = $2
       WHERE id = $1`,
      [userId, now],
    );
    for (const table of ['web_sessions', 'email_tokens', 'recovery_codes', 'login_challenges', 'workspace_members'])
      await c.query(`DELETE FROM ${table} WHERE user_id = $1`, [userId]);
  });
}
