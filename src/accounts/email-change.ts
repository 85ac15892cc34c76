// Changing a user's address (docs/web.md, "Changing the address"): asked for with the password, carried by a link
// mailed to the new address, done when the link is followed. The old address is told both times.
import type pg from 'pg';
import { inTransaction } from '../db/pool.js';
import { tokenHash } from './tokens.js';
import { issueEmailToken, normalizeEmail, passwordMatches } from './users.js';

/** PostgreSQL's unique_violation: the new address was taken between the request and the link. */
const UNIQUE_VIOLATION = '23505';

export type ChangeRequest =
  | { kind: 'wrong_password' }
  | { kind: 'same' }
  | { kind: 'requested'; oldEmail: string; newEmail: string; token: string | null };

/**
 * Asks to move the user to `newEmail`: a link token for the new address, or `token: null` when that address has
 * an account already (its owner is told instead; the page says the same either way).
 */
export async function requestEmailChange(
  pool: pg.Pool,
  userId: string,
  password: string,
  newEmail: string,
  now: Date,
): Promise<ChangeRequest> {
  const address = normalizeEmail(newEmail);
  if (!(await passwordMatches(pool, userId, password))) return { kind: 'wrong_password' };
  const { rows } = await pool.query<{ email: string }>('SELECT email FROM users WHERE id = $1', [userId]);
  const user = rows[0]!;
  if (address === user.email) return { kind: 'same' };
  const taken = await pool.query('SELECT 1 FROM users WHERE email = $1', [address]);
  const token = taken.rowCount ? null : await issueEmailToken(pool, userId, 'email_change', now, address);
  return { kind: 'requested', oldEmail: user.email, newEmail: address, token };
}

/** Whether a change link may still be followed. */
export async function emailChangeOpen(pool: pg.Pool, token: string, now: Date): Promise<boolean> {
  const { rows } = await pool.query(
    `SELECT 1 FROM email_tokens WHERE token_hash = $1 AND purpose = 'email_change' AND used_at IS NULL
       AND expires_at > $2`,
    [tokenHash(token), now],
  );
  return rows.length > 0;
}

/**
 * Follows a change link: the new address is the user's (verified: the link reached it), every other link of the
 * user is spent. Null when the link is unknown, used or expired, or the address was taken meanwhile.
 */
export async function confirmEmailChange(
  pool: pg.Pool,
  token: string,
  now: Date,
): Promise<{ userId: string; oldEmail: string; newEmail: string } | null> {
  try {
    return await inTransaction(pool, async (client) => {
      const { rows } = await client.query<{ user_id: string; new_email: string }>(
        `UPDATE email_tokens SET used_at = $2
         WHERE token_hash = $1 AND purpose = 'email_change' AND used_at IS NULL AND expires_at > $2
         RETURNING user_id, new_email`,
        [tokenHash(token), now],
      );
      const link = rows[0];
      if (!link) return null;
      const { rows: old } = await client.query<{ email: string }>('SELECT email FROM users WHERE id = $1 FOR UPDATE', [
        link.user_id,
      ]);
      await client.query(
        'UPDATE users SET email = $2, email_verified_at = coalesce(email_verified_at, $3) WHERE id = $1',
        [link.user_id, link.new_email, now],
      );
      // Links mailed to the old address must not act for the account any more.
      await client.query('UPDATE email_tokens SET used_at = $2 WHERE user_id = $1 AND used_at IS NULL', [
        link.user_id,
        now,
      ]);
      return { userId: link.user_id, oldEmail: old[0]!.email, newEmail: link.new_email };
    });
  } catch (err) {
    if ((err as { code?: string }).code === UNIQUE_VIOLATION) return null;
    throw err;
  }
}
