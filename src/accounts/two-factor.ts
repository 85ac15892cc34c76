// Two-factor login (docs/web.md, "Two-factor login"): a TOTP secret (RFC 6238, 30 s, 6 digits, SHA-1, as every
// authenticator app reads it) set up and confirmed by a first code, ten single-use recovery codes, and the login's
// second step. A code is accepted once: the time step it matched is kept.
import { randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import type pg from 'pg';
import { inTransaction } from '../db/pool.js';
import { passwordMatches } from './users.js';
import { newToken, tokenHash } from './tokens.js';

/** The issuer an authenticator app shows beside the account. */
const ISSUER = 'Registry Lookup';
/** Codes of the step before and after are accepted too: a phone's clock a little off, a code typed slowly. */
const WINDOW_STEPS = 1;
const STEP_SECONDS = 30;
const RECOVERY_CODES = 10;
/** The second step must follow the password within this, in at most this many tries. */
const CHALLENGE_MS = 5 * 60_000;
const CHALLENGE_ATTEMPTS = 5;

const totp = (secret: string, email: string): TOTP =>
  new TOTP({ issuer: ISSUER, label: email, secret: Secret.fromBase32(secret), period: STEP_SECONDS, digits: 6 });

/** A recovery code as typed: case, spaces and dashes do not matter. */
const normalizeRecovery = (code: string): string => code.toLowerCase().replace(/[\s-]/g, '');

export interface TwoFactorState {
  enabled: boolean;
  enabledAt: string | null;
  recoveryLeft: number;
}

export async function twoFactorState(db: pg.Pool, userId: string): Promise<TwoFactorState> {
  const { rows } = await db.query<{ enabled_at: string | null; left: number }>(
    `SELECT to_char(totp_enabled_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS enabled_at,
       (SELECT count(*)::int FROM recovery_codes r WHERE r.user_id = u.id AND r.used_at IS NULL) AS left
     FROM users u WHERE id = $1`,
    [userId],
  );
  const r = rows[0];
  return { enabled: Boolean(r?.enabled_at), enabledAt: r?.enabled_at ?? null, recoveryLeft: r?.left ?? 0 };
}

/** Starts a setup: a new secret, not yet in force; its `otpauth://` URI for the QR code. Null when already on. */
export async function startSetup(
  pool: pg.Pool,
  userId: string,
  email: string,
): Promise<{ secret: string; uri: string } | null> {
  const secret = new Secret({ size: 20 }).base32;
  const { rowCount } = await pool.query('UPDATE users SET totp_secret = $2 WHERE id = $1 AND totp_enabled_at IS NULL', [
    userId,
    secret,
  ]);
  return rowCount ? { secret, uri: totp(secret, email).toString() } : null;
}

/** The setup under way (started, not yet confirmed), to show again after a wrong first code. */
export async function pendingSetup(
  pool: pg.Pool,
  userId: string,
  email: string,
): Promise<{ secret: string; uri: string } | null> {
  const { rows } = await pool.query<{ totp_secret: string }>(
    'SELECT totp_secret FROM users WHERE id = $1 AND totp_enabled_at IS NULL AND totp_secret IS NOT NULL',
    [userId],
  );
  const secret = rows[0]?.totp_secret;
  return secret ? { secret, uri: totp(secret, email).toString() } : null;
}

/** The time step `code` matches for the secret at `now`, or null. */
function matchingStep(secret: string, email: string, code: string, now: Date): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = totp(secret, email).validate({ token: code, timestamp: now.getTime(), window: WINDOW_STEPS });
  return delta === null ? null : Math.floor(now.getTime() / 1000 / STEP_SECONDS) + delta;
}

/**
 * Confirms the setup with a first code: two-factor login is on, and ten recovery codes are made (returned this
 * once). Null when the code does not match the secret being set up.
 */
export async function confirmSetup(
  pool: pg.Pool,
  userId: string,
  email: string,
  code: string,
  now: Date,
): Promise<string[] | null> {
  return inTransaction(pool, async (client) => {
    const { rows } = await client.query<{ totp_secret: string | null }>(
      'SELECT totp_secret FROM users WHERE id = $1 AND totp_enabled_at IS NULL FOR UPDATE',
      [userId],
    );
    const secret = rows[0]?.totp_secret;
    const step = secret ? matchingStep(secret, email, code.trim(), now) : null;
    if (step === null) return null;
    await client.query('UPDATE users SET totp_enabled_at = $2, totp_last_step = $3 WHERE id = $1', [userId, now, step]);
    const codes = Array.from({ length: RECOVERY_CODES }, () => {
      const hex = randomBytes(5).toString('hex');
      return `${hex.slice(0, 5)}-${hex.slice(5)}`;
    });
    await client.query('DELETE FROM recovery_codes WHERE user_id = $1', [userId]);
    await client.query('INSERT INTO recovery_codes (user_id, code_hash) SELECT $1, unnest($2::bytea[])', [
      userId,
      codes.map((c) => tokenHash(normalizeRecovery(c))),
    ]);
    return codes;
  });
}

/**
 * Checks a second factor in the caller's transaction: a TOTP code of a step later than the last accepted, or an
 * unused recovery code (then used up).
 */
async function checkCode(client: pg.PoolClient, userId: string, code: string, now: Date): Promise<boolean> {
  const { rows } = await client.query<{ email: string; totp_secret: string; totp_last_step: string | null }>(
    'SELECT email, totp_secret, totp_last_step FROM users WHERE id = $1 AND totp_enabled_at IS NOT NULL FOR UPDATE',
    [userId],
  );
  const u = rows[0];
  if (!u) return false;
  const step = matchingStep(u.totp_secret, u.email, code.trim(), now);
  if (step !== null && step > Number(u.totp_last_step ?? -1)) {
    await client.query('UPDATE users SET totp_last_step = $2 WHERE id = $1', [userId, step]);
    return true;
  }
  const { rowCount } = await client.query(
    'UPDATE recovery_codes SET used_at = $3 WHERE user_id = $1 AND code_hash = $2 AND used_at IS NULL',
    [userId, tokenHash(normalizeRecovery(code)), now],
  );
  return rowCount === 1;
}

/** Turns two-factor login off, given the password and a code; false (nothing changes) when either is wrong. */
export async function disable(
  pool: pg.Pool,
  userId: string,
  password: string,
  code: string,
  now: Date,
): Promise<boolean> {
  if (!(await passwordMatches(pool, userId, password))) return false;
  return inTransaction(pool, async (client) => {
    if (!(await checkCode(client, userId, code, now))) return false;
    await client.query(
      'UPDATE users SET totp_secret = NULL, totp_enabled_at = NULL, totp_last_step = NULL WHERE id = $1',
      [userId],
    );
    await client.query('DELETE FROM recovery_codes WHERE user_id = $1', [userId]);
    return true;
  });
}

/** Whether the user logs in with a second factor. */
export async function requiresSecondFactor(pool: pg.Pool, userId: string): Promise<boolean> {
  const { rows } = await pool.query('SELECT 1 FROM users WHERE id = $1 AND totp_enabled_at IS NOT NULL', [userId]);
  return rows.length > 0;
}

/** The login's second step, opened once the password is right: its token, for the code's form. */
export async function openChallenge(pool: pg.Pool, userId: string, next: string | null, now: Date): Promise<string> {
  const token = newToken();
  await pool.query('INSERT INTO login_challenges (token_hash, user_id, next, expires_at) VALUES ($1, $2, $3, $4)', [
    tokenHash(token),
    userId,
    next,
    new Date(now.getTime() + CHALLENGE_MS),
  ]);
  return token;
}

export type ChallengeOutcome =
  { kind: 'passed'; userId: string; next: string | null } | { kind: 'wrong' } | { kind: 'over' };

/**
 * Answers a second step: `passed` (the challenge is used up), `wrong` (another try left), or `over` (unknown,
 * expired or out of tries: log in again).
 */
export async function answerChallenge(
  pool: pg.Pool,
  token: string,
  code: string,
  now: Date,
): Promise<ChallengeOutcome> {
  return inTransaction(pool, async (client) => {
    const { rows } = await client.query<{ user_id: string; next: string | null; attempts: number }>(
      `UPDATE login_challenges SET attempts = attempts + 1
       WHERE token_hash = $1 AND expires_at > $2 AND attempts < $3 RETURNING user_id, next, attempts`,
      [tokenHash(token), now, CHALLENGE_ATTEMPTS],
    );
    const c = rows[0];
    if (!c) return { kind: 'over' };
    if (await checkCode(client, c.user_id, code, now)) {
      await client.query('DELETE FROM login_challenges WHERE token_hash = $1', [tokenHash(token)]);
      return { kind: 'passed', userId: c.user_id, next: c.next };
    }
    return c.attempts >= CHALLENGE_ATTEMPTS ? { kind: 'over' } : { kind: 'wrong' };
  });
}

/** Deletes second steps that are over (the daily `web_purge` job). */
export async function purgeChallenges(pool: pg.Pool, now: Date): Promise<number> {
  const { rowCount } = await pool.query('DELETE FROM login_challenges WHERE expires_at <= $1', [now]);
  return rowCount ?? 0;
}
