// Web sessions, kept in PostgreSQL: the cookie carries a random token, the table its hash, the user,
// the workspace the pages show and the secret the session's CSRF tokens are made from. A session ends
// at logout, at a password change (every session of the user), or 14 days after it began.
// docs/web.md, "Sessions".
import Tokens from '@fastify/csrf';
import type pg from 'pg';
import { newToken, tokenHash } from './tokens.js';

/** A browser stays signed in this long, however active (then the user logs in again). */
const SESSION_TTL_MS = 14 * 86_400_000;

export type Role = 'owner' | 'member';

export interface Session {
  readonly tokenHash: Buffer;
  readonly userId: string;
  readonly email: string;
  /** The workspace the pages show, and the member's role there; null when the user belongs to none. */
  readonly workspaceId: string | null;
  readonly role: Role | null;
  readonly csrfSecret: string;
  readonly expiresAt: Date;
}

type Db = pg.Pool | pg.PoolClient;

export const csrfTokens = Tokens();

/** Opens a session for a user; returns the token for the cookie (shown nowhere else). */
export async function openSession(db: Db, userId: string, now: Date): Promise<{ token: string; expiresAt: Date }> {
  const token = newToken();
  const expiresAt = new Date(now.getTime() + SESSION_TTL_MS);
  await db.query(
    `INSERT INTO web_sessions (token_hash, user_id, workspace_id, csrf_secret, created_at, expires_at)
     VALUES ($1, $2, (SELECT workspace_id FROM workspace_members WHERE user_id = $2
                      ORDER BY role = 'owner' DESC, created_at LIMIT 1), $3, $4, $5)`,
    [tokenHash(token), userId, await csrfTokens.secret(), now, expiresAt],
  );
  return { token, expiresAt };
}

/**
 * The session a cookie's token opens, with the workspace it shows: the one chosen if the user is still
 * a member of it, else the one they own, else their oldest membership. Null: no such session, or over.
 */
export async function loadSession(db: Db, token: string, now: Date): Promise<Session | null> {
  const { rows } = await db.query<{
    user_id: string;
    email: string;
    workspace_id: string | null;
    role: Role | null;
    csrf_secret: string;
    expires_at: Date;
  }>(
    `SELECT s.user_id, u.email, m.workspace_id, m.role, s.csrf_secret, s.expires_at
     FROM web_sessions s JOIN users u ON u.id = s.user_id
     LEFT JOIN LATERAL (
       SELECT workspace_id, role FROM workspace_members wm WHERE wm.user_id = s.user_id
       ORDER BY wm.workspace_id = s.workspace_id DESC, wm.role = 'owner' DESC, wm.created_at LIMIT 1) m ON true
     WHERE s.token_hash = $1 AND s.expires_at > $2`,
    [tokenHash(token), now],
  );
  const r = rows[0];
  if (!r) return null;
  return {
    tokenHash: tokenHash(token),
    userId: r.user_id,
    email: r.email,
    workspaceId: r.workspace_id,
    role: r.role,
    csrfSecret: r.csrf_secret,
    expiresAt: r.expires_at,
  };
}

export async function endSession(db: Db, session: Pick<Session, 'tokenHash'>): Promise<void> {
  await db.query('DELETE FROM web_sessions WHERE token_hash = $1', [session.tokenHash]);
}

/** Shows another workspace in this session; false (nothing changes) unless the user is a member of it. */
export async function chooseWorkspace(db: Db, session: Session, workspaceId: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE web_sessions SET workspace_id = $3 WHERE token_hash = $1
       AND EXISTS (SELECT 1 FROM workspace_members WHERE user_id = $2 AND workspace_id = $3)`,
    [session.tokenHash, session.userId, workspaceId],
  );
  return rowCount === 1;
}

/** Deletes sessions that are over (the daily `web_purge` job). */
export async function purgeSessions(db: Db, now: Date): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM web_sessions WHERE expires_at <= $1', [now]);
  return rowCount ?? 0;
}
