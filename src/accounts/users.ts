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

export type EmailPurpose = 'verify' | 'reset' | 'email_change';

/** A verification link is good for two days (mail can be slow to be read); a reset link for one hour; a change of
 *  address for a day. */
const EMAIL_TOKEN_TTL_MS: Readonly<Record<EmailPurpose, number>> = {
  verify: 48 * 3600_000,
  reset: 3600_000,
  email_change: 24 * 3600_000,
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
  intendedPlan: string | null = null,
): Promise<{ user: User; created: boolean }> {
  const hash = await hashPassword(password);
  const { rows } = await pool.query<User>(
    `INSERT INTO users (id, email, password_hash, created_at, password_changed_at, intended_plan)
     VALUES ($1, $2, $3, $4, $4, $5)
     ON CONFLICT (email) DO NOTHING RETURNING ${USER_COLUMNS}`,
    [`usr_${base62(16)}`, normalizeEmail(email), hash, now, intendedPlan],
  );
  if (rows[0]) return { user: rows[0], created: true };
  // An address not yet verified signing up again: its latest choice of plan stands (its password does not change).
  await pool.query('UPDATE users SET intended_plan = $2 WHERE email = $1 AND email_verified_at IS NULL', [
    normalizeEmail(email),
    intendedPlan,
  ]);
  return { user: (await findUser(pool, email))!, created: false };
}

/** A single-use link token for a user (verify the address, reset the password, move to `newEmail`). */
export async function issueEmailToken(
  db: Db,
  userId: string,
  purpose: EmailPurpose,
  now: Date,
  newEmail: string | null = null,
): Promise<string> {
  const token = newToken();
  await db.query(
    `INSERT INTO email_tokens (token_hash, user_id, purpose, created_at, expires_at, new_email)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [tokenHash(token), userId, purpose, now, new Date(now.getTime() + EMAIL_TOKEN_TTL_MS[purpose]), newEmail],
  );
  return token;
}

/** Whether a link token may still be used (unknown, used, expired and other purposes may not); uses nothing. */
export async function emailTokenOpen(db: Db, token: string, purpose: EmailPurpose, now: Date): Promise<boolean> {
  const { rows } = await db.query(
    'SELECT 1 FROM email_tokens WHERE token_hash = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > $3',
    [tokenHash(token), purpose, now],
  );
  return rows.length > 0;
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
  /** The workspaces whose open invitations of this address the first verification accepted. */
  readonly joined: string[];
  /** The plan chosen on the pricing page before signing up, offered once after the first verification. */
  readonly intendedPlan: string | null;
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

/**
 * The address is verified. The first time, the open invitations of the address are accepted (the link proved the
 * mailbox they were sent to): the user lands in the inviting workspaces. A user then in no workspace gets their
 * own, on the free trial.
 */
async function markVerified(client: pg.PoolClient, userId: string, pepper: string, clock: Clock): Promise<Verified> {
  const now = clock.now();
  // The subquery reads the row before this update: whether this is the first verification.
  const { rows } = await client.query<User & { first: boolean; intended_plan: string | null }>(
    `UPDATE users u SET email_verified_at = coalesce(u.email_verified_at, $2), intended_plan = NULL
     FROM (SELECT email_verified_at IS NULL AS first, intended_plan FROM users WHERE id = $1 FOR UPDATE) was
     WHERE u.id = $1 RETURNING ${USER_COLUMNS}, was.first, was.intended_plan`,
    [userId, now],
  );
  const { first, intended_plan: chosen, ...user } = rows[0]!;
  const intendedPlan = first ? chosen : null;
  const joined = first ? await acceptOpenInvitations(client, user, now) : [];
  const { rowCount } = await client.query('SELECT 1 FROM workspace_members WHERE user_id = $1', [userId]);
  if (rowCount) return { user, opened: null, joined, intendedPlan };
  return { user, opened: await openTrial(client, user, pepper, clock), joined, intendedPlan };
}

/** A workspace on the free trial owned by the user, with its first live key. */
async function openTrial(
  client: pg.PoolClient,
  user: User,
  pepper: string,
  clock: Clock,
): Promise<{ workspace: Workspace; key: CreatedKey }> {
  const opened = await insertWorkspace(
    client,
    { plan: 'free_trial', name: user.email, keyName: 'First key' },
    pepper,
    clock,
  );
  await client.query(
    `INSERT INTO workspace_members (workspace_id, user_id, role, created_at) VALUES ($1, $2, 'owner', $3)`,
    [opened.workspace.id, user.id, clock.now()],
  );
  await client.query('UPDATE users SET trial_opened_at = $2 WHERE id = $1', [user.id, clock.now()]);
  // The workspace's first key is its owner's doing, like every key after it.
  await recordAudit(client, {
    workspaceId: opened.workspace.id,
    actor: { kind: 'user', id: user.id, ip: null },
    action: 'key.create',
    target: opened.key.id,
    detail: opened.key.name,
    at: clock.now(),
  });
  return opened;
}

/**
 * A workspace of their own on the free trial for a verified user who never had one (one who joined by invitation
 * and was removed, say): one mailbox, one trial. Null when the user had a trial already or is not verified.
 */
export async function openOwnWorkspace(
  pool: pg.Pool,
  userId: string,
  pepper: string,
  clock: Clock,
): Promise<{ workspace: Workspace; key: CreatedKey } | null> {
  return inTransaction(pool, async (client) => {
    // The user's row locked: two clicks at once open one workspace.
    const { rows } = await client.query<User>(
      `SELECT ${USER_COLUMNS} FROM users
       WHERE id = $1 AND email_verified_at IS NOT NULL AND trial_opened_at IS NULL FOR UPDATE`,
      [userId],
    );
    return rows[0] ? openTrial(client, rows[0], pepper, clock) : null;
  });
}

/** Accepts every open invitation of the user's address, as a member; returns the workspaces joined. */
async function acceptOpenInvitations(client: pg.PoolClient, user: User, now: Date): Promise<string[]> {
  const { rows } = await client.query<{ workspace_id: string }>(
    `WITH accepted AS (
       UPDATE invitations SET accepted_at = $3
       WHERE email = $2 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > $3 RETURNING workspace_id)
     INSERT INTO workspace_members (workspace_id, user_id, role, created_at)
     SELECT DISTINCT workspace_id, $1, 'member', $3::timestamptz FROM accepted
     ON CONFLICT DO NOTHING RETURNING workspace_id`,
    [user.id, user.email, now],
  );
  for (const r of rows)
    await recordAudit(client, {
      workspaceId: r.workspace_id,
      actor: { kind: 'user', id: user.id, ip: null },
      action: 'member.accept',
      target: user.email,
      at: now,
    });
  return rows.map((r) => r.workspace_id).sort();
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

/** Whether the password is the user's: the check before a change the account asks it for. */
export async function passwordMatches(db: Db, userId: string, password: string): Promise<boolean> {
  const { rows } = await db.query<{ password_hash: string }>('SELECT password_hash FROM users WHERE id = $1', [userId]);
  return Boolean(rows[0]) && (await checkPassword(rows[0]!.password_hash, password));
}

/** Changes a password given the current one; false when the current one is wrong (nothing changes). */
export async function changePassword(
  pool: pg.Pool,
  userId: string,
  current: string,
  next: string,
  now: Date,
): Promise<boolean> {
  if (!(await passwordMatches(pool, userId, current))) return false;
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
