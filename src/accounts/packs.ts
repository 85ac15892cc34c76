// Credit packs (docs/contract.md, "Plans and credits"): bought once, spent after the monthly credits
// (earliest expiry first), expiring at 00:00 UTC on the anniversary of the purchase day.
import type pg from 'pg';
import { PACKS, PACK_VALID_MONTHS, type PackSlug } from './catalog.js';
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
