// Workspaces and their keys, as the operator manages them (the `registry workspace|key|credits`
// commands). Every change to a credit pool is written to the ledger in the same transaction.
import type pg from 'pg';
import type { Clock } from '../clock.js';
import { inTransaction } from '../db/pool.js';
import { base62, hashKey, keyHint, newKey, type KeyKind } from './keys.js';
import { PLANS, TEST_KEY_MONTHLY_CREDITS, type PlanSlug } from './catalog.js';
import { isPlanSlug } from './plans.js';

class AccountError extends Error {}

export interface Workspace {
  id: string;
  name: string;
  plan: PlanSlug;
  subscription_status: 'active' | 'past_due' | 'cancelled';
  suspended: boolean;
  per_minute_override: number | null;
  created_at: string;
  cycle_start: string;
  monthly_remaining: number;
  trial_capped_at: string | null;
  test_remaining: number;
  overage_unbilled: number;
  cancelled_at: string | null;
  /** The customer at Stripe, where overage is invoiced (billing). */
  stripe_customer_id: string | null;
}

export interface ApiKeyInfo {
  id: string;
  workspace_id: string;
  kind: KeyKind;
  hint: string;
  /** Given in the web app; null for keys made by the command line. */
  name: string | null;
  created_at: string;
  revoked_at: string | null;
  /** The minute of its last authenticated request. */
  last_used_at: string | null;
}

export interface CreatedKey extends ApiKeyInfo {
  /** The raw key: shown once, never stored. */
  key: string;
}

type Db = pg.Pool | pg.PoolClient;

const iso = (column: string): string => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`;

const WORKSPACE_COLUMNS = `id, name, plan, subscription_status, suspended, per_minute_override,
  ${iso('created_at')} AS created_at, cycle_start::text, monthly_remaining,
  ${iso('trial_capped_at')} AS trial_capped_at, test_remaining, overage_unbilled,
  ${iso('cancelled_at')} AS cancelled_at, stripe_customer_id`;
const KEY_COLUMNS = `id, workspace_id, kind, hint, name, ${iso('created_at')} AS created_at,
  ${iso('revoked_at')} AS revoked_at, ${iso('last_used_at')} AS last_used_at`;

export interface LedgerEntry {
  workspace: string;
  at: Date;
  kind: string;
  pool: 'monthly' | 'pack' | 'overage' | 'test';
  amount: number;
  note?: string;
  packId?: number;
}

export async function writeLedger(db: Db, e: LedgerEntry): Promise<void> {
  await db.query(
    `INSERT INTO credit_ledger (workspace_id, at, kind, pool, amount, pack_id, note)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [e.workspace, e.at, e.kind, e.pool, e.amount, e.packId ?? null, e.note ?? null],
  );
}

export async function getWorkspace(db: Db, id: string, lock = false): Promise<Workspace> {
  const { rows } = await db.query<Workspace>(
    `SELECT ${WORKSPACE_COLUMNS} FROM workspaces WHERE id = $1 ${lock ? 'FOR UPDATE' : ''}`,
    [id],
  );
  if (!rows[0]) throw new AccountError(`no workspace ${id}`);
  return rows[0];
}

async function insertKey(
  db: Db,
  workspace: string,
  kind: KeyKind,
  pepper: string,
  clock: Clock,
  name: string | null = null,
): Promise<CreatedKey> {
  const key = newKey(kind);
  const { rows } = await db.query<ApiKeyInfo>(
    `INSERT INTO api_keys (id, workspace_id, kind, hash, hint, created_at, name) VALUES ($1, $2, $3, $4, $5, $6, $7)
     RETURNING ${KEY_COLUMNS}`,
    [`key_${base62(16)}`, workspace, kind, hashKey(key, pepper), keyHint(key), clock.now(), name],
  );
  return { ...rows[0]!, key };
}

/** A new workspace on `plan`, its credits granted, and its first live key. */
export async function createWorkspace(
  pool: pg.Pool,
  opts: { plan: string; name?: string; keyName?: string },
  pepper: string,
  clock: Clock,
): Promise<{ workspace: Workspace; key: CreatedKey }> {
  return inTransaction(pool, (client) => insertWorkspace(client, opts, pepper, clock));
}

/** createWorkspace inside the caller's transaction. */
export async function insertWorkspace(
  client: pg.PoolClient,
  opts: { plan: string; name?: string; keyName?: string },
  pepper: string,
  clock: Clock,
): Promise<{ workspace: Workspace; key: CreatedKey }> {
  if (!isPlanSlug(opts.plan))
    throw new AccountError(`unknown plan ${opts.plan} (one of ${Object.keys(PLANS).join(', ')})`);
  const plan = PLANS[opts.plan];
  const now = clock.now();
  const id = `ws_${base62(16)}`;
  await client.query(
    `INSERT INTO workspaces (id, name, plan, created_at, cycle_start, monthly_remaining, test_cycle_start,
                               test_remaining, usage_month)
       VALUES ($1, $2, $3, $4, month_start($4), $5, month_start($4), $6, month_start($4))`,
    [id, opts.name ?? id, plan.slug, now, plan.monthlyCredits, TEST_KEY_MONTHLY_CREDITS],
  );
  const trial = plan.slug === 'free_trial';
  await writeLedger(client, {
    workspace: id,
    at: now,
    kind: trial ? 'signup_grant' : 'monthly_grant',
    pool: 'monthly',
    amount: plan.monthlyCredits,
    note: trial ? 'free trial' : `${plan.slug} plan, first cycle`,
  });
  await writeLedger(client, {
    workspace: id,
    at: now,
    kind: 'monthly_grant',
    pool: 'test',
    amount: TEST_KEY_MONTHLY_CREDITS,
    note: 'test pool',
  });
  const key = await insertKey(client, id, 'live', pepper, clock, opts.keyName ?? null);
  return { workspace: await getWorkspace(client, id), key };
}

export async function createKey(
  pool: pg.Pool,
  workspace: string,
  kind: KeyKind,
  pepper: string,
  clock: Clock,
  name: string | null = null,
): Promise<CreatedKey> {
  await getWorkspace(pool, workspace);
  return insertKey(pool, workspace, kind, pepper, clock, name);
}

export async function listKeys(pool: pg.Pool, workspace: string): Promise<ApiKeyInfo[]> {
  await getWorkspace(pool, workspace);
  const { rows } = await pool.query<ApiKeyInfo>(
    `SELECT ${KEY_COLUMNS} FROM api_keys WHERE workspace_id = $1 ORDER BY created_at, id`,
    [workspace],
  );
  return rows;
}

export async function revokeKey(pool: pg.Pool, keyId: string, clock: Clock): Promise<ApiKeyInfo> {
  const { rows } = await pool.query<ApiKeyInfo>(
    `UPDATE api_keys SET revoked_at = coalesce(revoked_at, $2) WHERE id = $1 RETURNING ${KEY_COLUMNS}`,
    [keyId, clock.now()],
  );
  if (!rows[0]) throw new AccountError(`no key ${keyId}`);
  return rows[0];
}

export async function setSuspended(pool: pg.Pool, workspace: string, suspended: boolean): Promise<Workspace> {
  await pool.query('UPDATE workspaces SET suspended = $2 WHERE id = $1', [workspace, suspended]);
  return getWorkspace(pool, workspace);
}

export async function setStatus(pool: pg.Pool, workspace: string, status: string): Promise<Workspace> {
  if (status !== 'active' && status !== 'past_due')
    throw new AccountError(
      `unknown subscription status ${status} (active or past_due; cancel with \`registry workspace cancel\`)`,
    );
  // Out of `cancelled` this is a new subscription: overage accrues again and the next cycle grants.
  await pool.query('UPDATE workspaces SET subscription_status = $2, cancelled_at = NULL WHERE id = $1', [
    workspace,
    status,
  ]);
  return getWorkspace(pool, workspace);
}

export async function setPerMinute(pool: pg.Pool, workspace: string, perMinute: number | null): Promise<Workspace> {
  if (perMinute !== null && (!Number.isInteger(perMinute) || perMinute < 1))
    throw new AccountError('the per-minute override must be a positive integer');
  await pool.query('UPDATE workspaces SET per_minute_override = $2 WHERE id = $1', [workspace, perMinute]);
  return getWorkspace(pool, workspace);
}

/**
 * Moves a workspace to another plan. A new allowance starts at once: the current monthly pool is
 * dropped and the new plan's grant lands (both in the ledger). The trial is only ever given at signup.
 */
export async function setPlan(pool: pg.Pool, workspace: string, plan: string, clock: Clock): Promise<Workspace> {
  if (!isPlanSlug(plan)) throw new AccountError(`unknown plan ${plan} (one of ${Object.keys(PLANS).join(', ')})`);
  if (plan === 'free_trial')
    throw new AccountError('a workspace cannot move to the free trial; create a new workspace');
  const now = clock.now();
  return inTransaction(pool, async (client) => {
    const w = await getWorkspace(client, workspace, true);
    if (w.plan === plan) return w;
    if (w.monthly_remaining !== 0) {
      await writeLedger(client, {
        workspace,
        at: now,
        kind: 'monthly_expiry',
        pool: 'monthly',
        amount: -w.monthly_remaining,
        note: `plan change from ${w.plan}`,
      });
    }
    const credits = PLANS[plan].monthlyCredits;
    await writeLedger(client, {
      workspace,
      at: now,
      kind: 'monthly_grant',
      pool: 'monthly',
      amount: credits,
      note: `plan change to ${plan}`,
    });
    await client.query(
      'UPDATE workspaces SET plan = $2, monthly_remaining = $3, cycle_start = month_start($4) WHERE id = $1',
      [workspace, plan, credits, now],
    );
    return getWorkspace(client, workspace);
  });
}

/** An operator's adjustment of the monthly pool (negative takes credits away, never below zero). */
export async function adjustCredits(
  pool: pg.Pool,
  workspace: string,
  credits: number,
  reason: string,
  clock: Clock,
): Promise<Workspace> {
  if (!Number.isInteger(credits) || credits === 0) throw new AccountError('--credits must be a non-zero integer');
  return inTransaction(pool, async (client) => {
    const w = await getWorkspace(client, workspace, true);
    if (w.monthly_remaining + credits < 0) {
      throw new AccountError(`cannot take ${-credits} credits: the monthly pool holds ${w.monthly_remaining}`);
    }
    await writeLedger(client, {
      workspace,
      at: clock.now(),
      kind: 'admin_adjustment',
      pool: 'monthly',
      amount: credits,
      note: reason,
    });
    await client.query('UPDATE workspaces SET monthly_remaining = monthly_remaining + $2 WHERE id = $1', [
      workspace,
      credits,
    ]);
    return getWorkspace(client, workspace);
  });
}
