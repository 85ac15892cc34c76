// Who may act for a workspace: its owner and the members they invite by address. Members manage keys
// and see usage; only the owner changes billing and membership. Every function here takes the
// workspace the signed-in user acts for, so no call reaches another workspace's rows.
// docs/web.md, "Members".
import type pg from 'pg';
import { inTransaction } from '../db/pool.js';
import { recordAudit, type Actor } from './audit.js';
import { base62 } from './keys.js';
import type { Role } from './sessions.js';
import { newToken, tokenHash } from './tokens.js';
import { normalizeEmail } from './users.js';

/** An invitation link is good for a week. */
const INVITATION_TTL_MS = 7 * 86_400_000;
/** A workspace has at most this many members and pending invitations together (a mail-flood guard). */
const MAX_MEMBERS = 50;

const iso = (c: string): string => `to_char(${c} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`;

export interface Member {
  user_id: string;
  email: string;
  role: Role;
  created_at: string;
}

export interface Invitation {
  id: string;
  email: string;
  created_at: string;
  expires_at: string;
}

export interface Membership {
  workspace_id: string;
  name: string;
  role: Role;
}

export class MemberError extends Error {}

export async function listMembers(pool: pg.Pool, workspaceId: string): Promise<Member[]> {
  const { rows } = await pool.query<Member>(
    `SELECT m.user_id, u.email, m.role, ${iso('m.created_at')} AS created_at
     FROM workspace_members m JOIN users u ON u.id = m.user_id
     WHERE m.workspace_id = $1 ORDER BY m.role = 'owner' DESC, m.created_at`,
    [workspaceId],
  );
  return rows;
}

/** Invitations not yet accepted, revoked or expired. */
export async function pendingInvitations(pool: pg.Pool, workspaceId: string, now: Date): Promise<Invitation[]> {
  const { rows } = await pool.query<Invitation>(
    `SELECT id, email, ${iso('created_at')} AS created_at, ${iso('expires_at')} AS expires_at FROM invitations
     WHERE workspace_id = $1 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > $2 ORDER BY created_at`,
    [workspaceId, now],
  );
  return rows;
}

/** The workspaces a user belongs to, theirs first. */
export async function memberships(pool: pg.Pool, userId: string): Promise<Membership[]> {
  const { rows } = await pool.query<Membership>(
    `SELECT m.workspace_id, w.name, m.role FROM workspace_members m JOIN workspaces w ON w.id = m.workspace_id
     WHERE m.user_id = $1 ORDER BY m.role = 'owner' DESC, m.created_at`,
    [userId],
  );
  return rows;
}

/** Invites an address to a workspace; returns the link's token, to mail. */
export async function invite(
  pool: pg.Pool,
  workspaceId: string,
  invitedBy: string,
  email: string,
  now: Date,
  actor: Actor,
): Promise<string> {
  const address = normalizeEmail(email);
  return inTransaction(pool, async (client) => {
    // The workspace's row serializes invitations, so the limit holds under concurrent posts.
    await client.query('SELECT 1 FROM workspaces WHERE id = $1 FOR UPDATE', [workspaceId]);
    const { rows } = await client.query<{ member: boolean; invited: boolean; total: number }>(
      `SELECT EXISTS (SELECT 1 FROM workspace_members m JOIN users u ON u.id = m.user_id
                      WHERE m.workspace_id = $1 AND u.email = $2) AS member,
              EXISTS (SELECT 1 FROM invitations WHERE workspace_id = $1 AND email = $2 AND accepted_at IS NULL
                      AND revoked_at IS NULL AND expires_at > $3) AS invited,
              (SELECT count(*) FROM workspace_members WHERE workspace_id = $1)
                + (SELECT count(*) FROM invitations WHERE workspace_id = $1 AND accepted_at IS NULL
                   AND revoked_at IS NULL AND expires_at > $3) AS total`,
      [workspaceId, address, now],
    );
    const r = rows[0]!;
    if (r.member) throw new MemberError(`${address} is already a member of this workspace.`);
    if (r.invited) throw new MemberError(`${address} is already invited; the invitation can be revoked below.`);
    if (Number(r.total) >= MAX_MEMBERS)
      throw new MemberError(`A workspace has at most ${MAX_MEMBERS} members and invitations.`);
    const token = newToken();
    await client.query(
      `INSERT INTO invitations (id, workspace_id, email, token_hash, invited_by, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [
        `inv_${base62(16)}`,
        workspaceId,
        address,
        tokenHash(token),
        invitedBy,
        now,
        new Date(now.getTime() + INVITATION_TTL_MS),
      ],
    );
    await recordAudit(client, { workspaceId, actor, action: 'member.invite', target: address, at: now });
    return token;
  });
}

/** The open invitation a link names, with its workspace's name; null when unknown, used, revoked or expired. */
export async function findInvitation(
  pool: pg.Pool,
  token: string,
  now: Date,
): Promise<{ id: string; workspace_id: string; workspace_name: string; email: string } | null> {
  const { rows } = await pool.query<{ id: string; workspace_id: string; workspace_name: string; email: string }>(
    `SELECT i.id, i.workspace_id, w.name AS workspace_name, i.email FROM invitations i
     JOIN workspaces w ON w.id = i.workspace_id
     WHERE i.token_hash = $1 AND i.accepted_at IS NULL AND i.revoked_at IS NULL AND i.expires_at > $2`,
    [tokenHash(token), now],
  );
  return rows[0] ?? null;
}

/**
 * Accepts an invitation as a signed-in user whose address is the one invited. Returns the workspace
 * joined, or null when the link is no longer open or was sent to another address.
 */
export async function acceptInvitation(
  pool: pg.Pool,
  token: string,
  user: { id: string; email: string },
  now: Date,
  ip: string | null,
): Promise<string | null> {
  return inTransaction(pool, async (client) => {
    const { rows } = await client.query<{ id: string; workspace_id: string }>(
      `UPDATE invitations SET accepted_at = $3
       WHERE token_hash = $1 AND email = $2 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > $3
       RETURNING id, workspace_id`,
      [tokenHash(token), user.email, now],
    );
    const inv = rows[0];
    if (!inv) return null;
    await client.query(
      `INSERT INTO workspace_members (workspace_id, user_id, role, created_at) VALUES ($1, $2, 'member', $3)
       ON CONFLICT DO NOTHING`,
      [inv.workspace_id, user.id, now],
    );
    await recordAudit(client, {
      workspaceId: inv.workspace_id,
      actor: { kind: 'user', id: user.id, ip },
      action: 'member.accept',
      target: user.email,
      at: now,
    });
    return inv.workspace_id;
  });
}

export async function revokeInvitation(
  pool: pg.Pool,
  workspaceId: string,
  id: string,
  now: Date,
  actor: Actor,
): Promise<boolean> {
  return inTransaction(pool, async (client) => {
    const { rows } = await client.query<{ email: string }>(
      `UPDATE invitations SET revoked_at = $3
       WHERE id = $2 AND workspace_id = $1 AND accepted_at IS NULL AND revoked_at IS NULL RETURNING email`,
      [workspaceId, id, now],
    );
    if (!rows[0]) return false;
    await recordAudit(client, {
      workspaceId,
      actor,
      action: 'member.invitation_revoke',
      target: rows[0].email,
      at: now,
    });
    return true;
  });
}

/** Removes a member (never the owner); their sessions then show another workspace of theirs. */
export async function removeMember(
  pool: pg.Pool,
  workspaceId: string,
  userId: string,
  now: Date,
  actor: Actor,
): Promise<boolean> {
  return inTransaction(pool, async (client) => {
    const { rows } = await client.query<{ email: string }>(
      `DELETE FROM workspace_members m USING users u
       WHERE m.workspace_id = $1 AND m.user_id = $2 AND m.role = 'member' AND u.id = m.user_id RETURNING u.email`,
      [workspaceId, userId],
    );
    if (!rows[0]) return false;
    await recordAudit(client, { workspaceId, actor, action: 'member.remove', target: rows[0].email, at: now });
    return true;
  });
}
