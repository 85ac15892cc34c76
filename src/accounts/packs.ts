// Credit packs (docs/contract.md, "Plans and credits"): bought once, spent after the monthly credits
// (earliest expiry first), expiring at 00:00 UTC on the anniversary of the purchase day.
import type pg from 'pg';
import { PACKS, PACK_VALID_MONTHS, REFUND_DAYS, REFUND_MAX_USED_PERCENT, type PackSlug } from './catalog.js';
import { writeLedger } from './workspaces.js';

export const isPackSlug = (s: unknown): s is PackSlug => typeof s === 'string' && Object.hasOwn(PACKS, s);

/** 00:00 UTC on the anniversary of the purchase day, PACK_VALID_MONTHS later. */
function packExpiry(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + PACK_VALID_MONTHS, at.getUTCDate()));
}

export interface Pack {
  id: number;
  workspace_id: string;
  slug: PackSlug;
  credits: number;
  remaining: number;
  purchased_at: string;
  expires_at: string;
  checkout_id: string | null;
}

/**
 * Adds a pack to a workspace with its ledger entry, inside the caller's transaction. A checkout id
 * already fulfilled adds nothing (returns null): the payment provider may report a payment twice.
 */
export async function addPack(
  client: pg.PoolClient,
  workspace: string,
  slug: PackSlug,
  at: Date,
  checkoutId: string | null,
): Promise<Pack | null> {
  const { credits } = PACKS[slug];
  const { rows } = await client.query<Pack>(
    `INSERT INTO credit_packs (workspace_id, slug, credits, remaining, purchased_at, expires_at, checkout_id)
     VALUES ($1, $2, $3, $3, $4, $5, $6) ON CONFLICT (checkout_id) DO NOTHING
     RETURNING id, workspace_id, slug, credits, remaining, purchased_at, expires_at, checkout_id`,
    [workspace, slug, credits, at, packExpiry(at), checkoutId],
  );
  const pack = rows[0];
  if (!pack) return null;
  await writeLedger(client, {
    workspace,
    at,
    kind: 'pack_purchase',
    pool: 'pack',
    amount: credits,
    packId: pack.id,
    note: `${slug} pack${checkoutId ? `, checkout ${checkoutId}` : ''}`,
  });
  return pack;
}

export interface PackView {
  id: number;
  slug: PackSlug;
  credits: number;
  remaining: number;
  purchased_at: string;
  expires_at: string;
  closed_reason: string | null;
  checkout_id: string | null;
  /** Paid through a checkout within the refund window, open, and used no more than the refund rule allows. */
  refundable: boolean;
}

/**
 * A workspace's packs, newest first, with whether each may still be refunded (docs/contract.md, "Plans and
 * credits").
 */
export async function listPacks(pool: pg.Pool, workspace: string, now: Date): Promise<PackView[]> {
  const { rows } = await pool.query<PackView>(
    `SELECT p.id, p.slug, p.credits, p.remaining,
       to_char(p.purchased_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS purchased_at,
       to_char(p.expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS expires_at,
       p.closed_reason, p.checkout_id,
       coalesce(c.status = 'paid' AND c.paid_at + make_interval(days => $3) > $2 AND p.closed_at IS NULL
         AND (p.credits - p.remaining) * 100 <= p.credits * $4, false) AS refundable
     FROM credit_packs p LEFT JOIN checkouts c ON c.id = p.checkout_id
     WHERE p.workspace_id = $1 ORDER BY p.purchased_at DESC, p.id DESC`,
    [workspace, now, REFUND_DAYS, REFUND_MAX_USED_PERCENT],
  );
  return rows;
}
