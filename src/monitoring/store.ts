// A workspace's watches, saved searches and webhook endpoints (docs/webhooks.md; its events: event-log.ts). Every
// refusal is a Refusal naming the field at fault; nothing is written when one is thrown.
import type pg from 'pg';
import { inTransaction } from '../db/pool.js';
import { recordAudit, type Actor } from '../accounts/audit.js';
import { PLANS, type MonitoringLimits, type PlanSlug } from '../accounts/catalog.js';
import { checkUrlForm, RefusedTarget } from './address.js';
import type { SavedSearch } from './matches.js';
import { ROTATION_OVERLAP_HOURS, newSecret } from './signature.js';
import { randomUUID } from 'node:crypto';

export class Refusal extends Error {
  constructor(
    readonly kind: 'bad_request' | 'not_found' | 'forbidden',
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/** A timestamp column as the API writes instants (UTC, seconds). */
export const iso = (column: string): string => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`;

const shortId = (prefix: string): string => `${prefix}_${randomUUID().replaceAll('-', '').slice(0, 20)}`;

/** The plan's monitoring limits, or a refusal when the plan has none. */
function limitsOf(plan: PlanSlug): MonitoringLimits {
  const limits = PLANS[plan].monitoring;
  if (!limits)
    throw new Refusal('forbidden', 'plan', `Monitoring is not part of the ${PLANS[plan].name} plan (Pro and above).`);
  return limits;
}

/**
 * Inserts a row a plan counts, if the workspace has room for it: the count and the insert in one transaction, under
 * a lock on the workspace's rows of that table, so concurrent creations never pass the plan's limit.
 */
async function withRoom<T>(
  pool: pg.Pool,
  room: { table: string; workspace: string; limit: number; what: string },
  insert: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  return inTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`${room.table} ${room.workspace}`]);
    const { rows } = await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${room.table} WHERE workspace_id = $1`,
      [room.workspace],
    );
    if (rows[0]!.n >= room.limit)
      throw new Refusal('forbidden', room.what, `The plan allows ${room.limit} ${room.what}; delete one first.`);
    return insert(client);
  });
}

export interface Watch {
  document_number: string;
  name: string | null;
  created_at: string;
}

export async function addWatch(pool: pg.Pool, workspace: string, plan: PlanSlug, doc: string): Promise<Watch> {
  const limits = limitsOf(plan);
  const { rows: entity } = await pool.query<{ name: string }>(
    'SELECT name FROM registry.entities WHERE document_number = $1',
    [doc],
  );
  if (!entity[0]) throw new Refusal('not_found', 'document_number', `No entity has document number ${doc}.`);
  const room = { table: 'watched_entities', workspace, limit: limits.watches, what: 'watches' };
  return withRoom(pool, room, async (client) => {
    const { rows } = await client.query<Watch>(
      `INSERT INTO watched_entities (workspace_id, document_number) VALUES ($1, $2)
       ON CONFLICT (workspace_id, document_number) DO UPDATE SET document_number = excluded.document_number
       RETURNING document_number, $3::text AS name, ${iso('created_at')} AS created_at`,
      [workspace, doc, entity[0]!.name],
    );
    return rows[0]!;
  });
}

/** A page of the workspace's watches, by document number, and how many it has. */
export async function listWatches(
  pool: pg.Pool,
  workspace: string,
  page: { limit: number; offset: number },
): Promise<{ rows: Watch[]; total: number }> {
  const { rows } = await pool.query<Watch>(
    `SELECT w.document_number, e.name,
       ${iso('w.created_at')} AS created_at
     FROM watched_entities w LEFT JOIN registry.entities e USING (document_number)
     WHERE w.workspace_id = $1 ORDER BY w.document_number LIMIT $2 OFFSET $3`,
    [workspace, page.limit, page.offset],
  );
  const { rows: n } = await pool.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM watched_entities WHERE workspace_id = $1',
    [workspace],
  );
  return { rows, total: n[0]!.n };
}

export async function deleteWatch(pool: pg.Pool, workspace: string, doc: string): Promise<void> {
  const { rowCount } = await pool.query(
    'DELETE FROM watched_entities WHERE workspace_id = $1 AND document_number = $2',
    [workspace, doc],
  );
  if (!rowCount) throw new Refusal('not_found', 'document_number', `${doc} is not watched.`);
}

export async function addSavedSearch(
  pool: pg.Pool,
  workspace: string,
  plan: PlanSlug,
  name: string,
  params: SavedSearch['params'],
): Promise<SavedSearch> {
  const limits = limitsOf(plan);
  const room = { table: 'saved_searches', workspace, limit: limits.savedSearches, what: 'saved searches' };
  return withRoom(pool, room, async (client) => {
    const { rows } = await client.query<SavedSearch>(
      `INSERT INTO saved_searches (id, workspace_id, name, params) VALUES ($1, $2, $3, $4)
       RETURNING id, workspace_id, name, params`,
      [shortId('ss'), workspace, name, JSON.stringify(params)],
    );
    return rows[0]!;
  });
}

export async function listSavedSearches(pool: pg.Pool, workspace: string): Promise<SavedSearch[]> {
  const { rows } = await pool.query<SavedSearch>(
    'SELECT id, workspace_id, name, params FROM saved_searches WHERE workspace_id = $1 ORDER BY created_at, id',
    [workspace],
  );
  return rows;
}

export async function deleteSavedSearch(pool: pg.Pool, workspace: string, id: string): Promise<void> {
  const { rowCount } = await pool.query('DELETE FROM saved_searches WHERE workspace_id = $1 AND id = $2', [
    workspace,
    id,
  ]);
  if (!rowCount) throw new Refusal('not_found', 'id', `No saved search ${id}.`);
}

export interface Endpoint {
  id: string;
  url: string;
  event_types: string[];
  paused: boolean;
  paused_reason: string | null;
  created_at: string;
  /** Only when created or rotated. */
  secret?: string;
}

const ENDPOINT_COLUMNS = `id, url, event_types, paused_at IS NOT NULL AS paused, paused_reason,
  ${iso('created_at')} AS created_at`;

export async function createEndpoint(
  pool: pg.Pool,
  workspace: string,
  plan: PlanSlug,
  url: string,
  types: string[],
  allowPrivate: boolean,
  actor: Actor,
): Promise<Endpoint> {
  const limits = limitsOf(plan);
  try {
    checkUrlForm(url, allowPrivate);
  } catch (err) {
    if (err instanceof RefusedTarget) throw new Refusal('bad_request', 'url', `The URL ${err.message}.`);
    throw err;
  }
  const secret = newSecret();
  const room = { table: 'webhook_endpoints', workspace, limit: limits.endpoints, what: 'webhook endpoints' };
  return withRoom(pool, room, async (client) => {
    const { rows } = await client.query<Endpoint>(
      `INSERT INTO webhook_endpoints (id, workspace_id, url, secret, event_types) VALUES ($1, $2, $3, $4, $5)
       RETURNING ${ENDPOINT_COLUMNS}`,
      [shortId('we'), workspace, url, secret, types],
    );
    const made = rows[0]!;
    await recordAudit(client, {
      workspaceId: workspace,
      actor,
      action: 'webhook.add',
      target: made.id,
      detail: url,
      at: new Date(),
    });
    return { ...made, secret };
  });
}

export async function listEndpoints(pool: pg.Pool, workspace: string): Promise<Endpoint[]> {
  const { rows } = await pool.query<Endpoint>(
    `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE workspace_id = $1 ORDER BY created_at, id`,
    [workspace],
  );
  return rows;
}

/** Pauses, resumes (retrying at once what waits) or rotates the secret of an endpoint. */
export async function changeEndpoint(
  pool: pg.Pool,
  workspace: string,
  id: string,
  change: 'pause' | 'resume' | 'rotate',
  actor: Actor,
): Promise<Endpoint> {
  const secret = change === 'rotate' ? newSecret() : null;
  const set = {
    pause: `paused_at = coalesce(paused_at, now()), paused_reason = coalesce(paused_reason, 'paused by hand')`,
    resume: 'paused_at = NULL, paused_reason = NULL, consecutive_failures = 0',
    // The old secret keeps signing beside the new one for the overlap (a rotation during one keeps the newer).
    rotate: `previous_secret = secret, secret = $3,
             previous_secret_until = now() + make_interval(hours => ${ROTATION_OVERLAP_HOURS})`,
  }[change];
  const changed = await inTransaction(pool, async (client) => {
    const { rows } = await client.query<Endpoint>(
      `UPDATE webhook_endpoints SET ${set} WHERE workspace_id = $1 AND id = $2 RETURNING ${ENDPOINT_COLUMNS}`,
      secret ? [workspace, id, secret] : [workspace, id],
    );
    if (!rows[0]) throw new Refusal('not_found', 'id', `No webhook endpoint ${id}.`);
    await recordAudit(client, {
      workspaceId: workspace,
      actor,
      action: `webhook.${change}`,
      target: id,
      at: new Date(),
    });
    return rows[0];
  });
  if (change === 'resume')
    await pool.query(
      `UPDATE webhook_deliveries SET next_attempt_at = now() WHERE endpoint_id = $1 AND status = 'pending'`,
      [id],
    );
  return secret ? { ...changed, secret } : changed;
}

export async function deleteEndpoint(pool: pg.Pool, workspace: string, id: string, actor: Actor): Promise<void> {
  await inTransaction(pool, async (client) => {
    const { rowCount } = await client.query('DELETE FROM webhook_endpoints WHERE workspace_id = $1 AND id = $2', [
      workspace,
      id,
    ]);
    if (!rowCount) throw new Refusal('not_found', 'id', `No webhook endpoint ${id}.`);
    await recordAudit(client, { workspaceId: workspace, actor, action: 'webhook.delete', target: id, at: new Date() });
  });
}
