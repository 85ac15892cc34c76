// The workspace's audit log: who changed its keys, members, billing and webhooks, when and from where. Each entry is
// written by the function that makes the change, in its transaction where it has one, so a change is not recorded
// without happening nor the reverse. Read newest first, a page at a time, on (workspace_id, id).
import type pg from 'pg';

type Db = pg.Pool | pg.PoolClient;

/** Who acts: a member in the web app, an API key, the operator's command line, or the service (the card processor). */
export type Actor =
  | { readonly kind: 'user'; readonly id: string; readonly ip: string | null }
  | { readonly kind: 'key'; readonly id: string; readonly ip: string | null }
  | { readonly kind: 'operator' }
  | { readonly kind: 'system' };

export const OPERATOR: Actor = { kind: 'operator' };
export const SYSTEM: Actor = { kind: 'system' };

type AuditAction =
  | 'key.create'
  | 'key.rename'
  | 'key.roll'
  | 'key.revoke'
  | 'reconcile.create'
  | 'reconcile.revoke'
  | 'member.invite'
  | 'member.invitation_revoke'
  | 'member.accept'
  | 'member.remove'
  | 'billing.pack_bought'
  | 'billing.plan_change'
  | 'billing.cancel'
  | 'webhook.add'
  | 'webhook.pause'
  | 'webhook.resume'
  | 'webhook.rotate'
  | 'webhook.delete'
  | 'workspace.delete';

export interface AuditChange {
  readonly workspaceId: string;
  readonly actor: Actor;
  readonly action: AuditAction;
  /** What was changed: a key's id, an address, an endpoint's id, a plan. */
  readonly target: string | null;
  /** A short note: a new name, a grace, a pack's credits. */
  readonly detail?: string | null;
  readonly at: Date;
}

/** Records one change, on the connection (and so in the transaction) that makes it. */
export async function recordAudit(db: Db, c: AuditChange): Promise<void> {
  const a = c.actor;
  await db.query(
    `INSERT INTO audit_events (workspace_id, at, actor_kind, actor_id, action, target, detail, client_ip)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      c.workspaceId,
      c.at,
      a.kind,
      'id' in a ? a.id : null,
      c.action,
      c.target,
      c.detail ?? null,
      'ip' in a ? a.ip : null,
    ],
  );
}

export interface AuditEntry {
  id: number;
  at: string;
  actor_kind: Actor['kind'];
  actor_id: string | null;
  /** The member's address, or the key's name or hint. */
  actor_label: string | null;
  action: AuditAction;
  target: string | null;
  detail: string | null;
  client_ip: string | null;
}

/** A page of the workspace's audit log, newest first: entries older than `before` (an entry's id) when given. */
export async function listAudit(
  pool: pg.Pool,
  workspaceId: string,
  before: number | null,
  limit: number,
): Promise<AuditEntry[]> {
  const { rows } = await pool.query<AuditEntry>(
    `SELECT a.id, to_char(a.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS at, a.actor_kind, a.actor_id,
            coalesce(u.email, k.name, k.hint) AS actor_label, a.action, a.target, a.detail, a.client_ip
     FROM (SELECT * FROM audit_events WHERE workspace_id = $1 AND ($2::bigint IS NULL OR id < $2)
           ORDER BY id DESC LIMIT $3) a
     LEFT JOIN users u ON a.actor_kind = 'user' AND u.id = a.actor_id
     LEFT JOIN api_keys k ON a.actor_kind = 'key' AND k.id = a.actor_id
     ORDER BY a.id DESC`,
    [workspaceId, before, limit],
  );
  return rows;
}
