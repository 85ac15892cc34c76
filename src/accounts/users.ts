// The people of the web app: sign-up, the address verified by a mailed link (which also opens the
// user's own workspace on the free trial, with its first live key), password login, change and reset.
// docs/web.md, "Accounts".
import type pg from 'pg';
import type { Clock } from '../clock.js';
import { inTransaction } from '../db/pool.js';
import { base62 } from './keys.js';
import { checkPassword, hashPassword } from './passwords.js';
import { newToken, tokenHash } from './tokens.js';
import { recordAudit } from './audit.js';
import { insertWorkspace, type CreatedKey, type Workspace } from './workspaces.js';

export interface User {
  id: string;
  email: string;
  email_verified_at: string | null;
}

export type EmailPurpose = 'verify' | 'reset';

/** A verification link is good for two days (mail can be slow to be read); a reset link for one hour. */
const EMAIL_TOKEN_TTL_MS: Readonly<Record<EmailPurpose, number>> = {
  verify: 48 * 3600_000,
  reset: 3600_000,
};

type Db = pg.Pool | pg.PoolClient;

const USER_COLUMNS = `id, email,
  to_char(email_verified_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS email_verified_at`;

/** One account per mailbox: addresses are compared trimmed and lower case. */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase();

export async function findUser(db: Db, email: string): Promise<User | null> {
  const { rows } = await db.query<User>(`SELECT ${USER_COLUMNS} FROM users WHERE email = $1`, [normalizeEmail(email)]);
  return rows[0] ?? null;
}

/**
 * A new, unverified user; `created` false when the address already has an account (left as it is:
 * the caller mails its owner instead, and answers the same either way).
 */
export async function signUp(
  pool: pg.Pool,
  email: string,
  password: string,
  now: Date,
): Promise<{ user: User; created: boolean }> {
  const hash = await hashPassword(password);
  const { rows } = await pool.query<User>(
    `INSERT INTO users (id, email, password_hash, created_at, password_changed_at) VALUES ($1, $2, $3, $4, $4)
     ON CONFLICT (email) DO NOTHING RETURNING ${USER_COLUMNS}`,
    [`usr_${base62(16)}`, normalizeEmail(email), hash, now],
  );
  if (rows[0]) return { user: rows[0], created: true };
  return { user: (await findUser(pool, email))!, created: false };
}

/** A single-use link token for a user (verify the address, reset the password). */
export async function issueEmailToken(db: Db, userId: string, purpose: EmailPurpose, now: Date): Promise<string> {
  const token = newToken();
  await db.query(
    `INSERT INTO email_tokens (token_hash, user_id, purpose, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)`,
    [tokenHash(token), userId, purpose, now, new Date(now.getTime() + EMAIL_TOKEN_TTL_MS[purpose])],
  );
  return token;
}

/** Uses a link token once: its user, or null when unknown, used, expired or for another purpose. */
async function consumeEmailToken(db: Db, token: string, purpose: EmailPurpose, now: Date): Promise<string | null> {
  const { rows } = await db.query<{ user_id: string }>(
    `UPDATE email_tokens SET used_at = $3
     WHERE token_hash = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > $3 RETURNING user_id`,
    [tokenHash(token), purpose, now],
  );
  return rows[0]?.user_id ?? null;
}

export interface Verified {
  readonly user: User;
  /** The user's own workspace and its first live key (shown once), made by this verification; null after. */
  readonly opened: { workspace: Workspace; key: CreatedKey } | null;
}

/**
 * Follows a verification link: the address is verified and, for a user who belongs to no workspace yet,
 * a workspace on the free trial is opened with them as its owner and its first live key made. Null: the
 * link is unknown, used or expired.
 */
export async function verifyEmail(
  pool: pg.Pool,
  token: string,
  pepper: string,
  clock: Clock,
): Promise<Verified | null> {
  return inTransaction(pool, async (client) => {
    const userId = await consumeEmailToken(client, token, 'verify', clock.now());
    return userId ? markVerified(client, userId, pepper, clock) : null;
  });
}

/** The address is verified; a user in no workspace yet gets their own, on the free trial. */
async function markVerified(client: pg.PoolClient, userId: string, pepper: string, clock: Clock): Promise<Verified> {
  const now = clock.now();
  const { rows } = await client.query<User>(
    `UPDATE users SET email_verified_at = coalesce(email_verified_at, $2) WHERE id = $1 RETURNING ${USER_COLUMNS}`,
    [userId, now],
  );
  const user = rows[0]!;
  const { rowCount } = await client.query('SELECT 1 FROM workspace_members WHERE user_id = $1', [userId]);
  if (rowCount) return { user, opened: null };
  const opened = await insertWorkspace(
    client,
    { plan: 'free_trial', name: user.email, keyName: 'First key' },
    pepper,
    clock,
  );
  await client.query(
    `INSERT INTO workspace_members (workspace_id, user_id, role, created_at) VALUES ($1, $2, 'owner', $3)`,
    [opened.workspace.id, userId, now],
  );
  // The workspace's first key is its owner's doing, like every key after it.
  await recordAudit(client, {
    workspaceId: opened.workspace.id,
    actor: { kind: 'user', id: userId, ip: null },
    action: 'key.create',
    target: opened.key.id,
    detail: opened.key.name,
    at: now,
  });
  return { user, opened };
}

/** The user whose address and password these are, or null (as slow either way: no one learns which addresses exist). */
export async function logIn(pool: pg.Pool, email: string, password: string): Promise<User | null> {
  const { rows } = await pool.query<User & { password_hash: string }>(
    `SELECT ${USER_COLUMNS}, password_hash FROM users WHERE email = $1`,
    [normalizeEmail(email)],
  );
  const row = rows[0];
  const ok = await checkPassword(row?.password_hash ?? null, password);
  if (!row || !ok) return null;
  const { password_hash: _hash, ...user } = row;
  return user;
}

/** Sets a user's password and ends every session of theirs (the caller opens a new one if it should). */
async function setPassword(client: pg.PoolClient, userId: string, password: string, now: Date): Promise<void> {
  await client.query('UPDATE users SET password_hash = $2, password_changed_at = $3 WHERE id = $1', [
    userId,
    await hashPassword(password),
    now,
  ]);
  await client.query('DELETE FROM web_sessions WHERE user_id = $1', [userId]);
}

/** Changes a password given the current one; false when the current one is wrong (nothing changes). */
export async function changePassword(
  pool: pg.Pool,
  userId: string,
  current: string,
  next: string,
  now: Date,
): Promise<boolean> {
  const { rows } = await pool.query<{ password_hash: string }>('SELECT password_hash FROM users WHERE id = $1', [
    userId,
  ]);
  if (!rows[0] || !(await checkPassword(rows[0].password_hash, current))) return false;
  await inTransaction(pool, (client) => setPassword(client, userId, next, now));
  return true;
}

/**
 * Follows a reset link: the new password is set, every session ended, and the address counts as
 * verified (the link reached its mailbox, as a verification link would have). Null: the link is
 * unknown, used or expired.
 */
export async function resetPassword(
  pool: pg.Pool,
  token: string,
  password: string,
  pepper: string,
  clock: Clock,
): Promise<User | null> {
  return inTransaction(pool, async (client) => {
    const userId = await consumeEmailToken(client, token, 'reset', clock.now());
    if (!userId) return null;
    await setPassword(client, userId, password, clock.now());
    return (await markVerified(client, userId, pepper, clock)).user;
  });
}
