// Overage invoicing: each UTC day's overage of a workspace becomes one invoice item, attached to
// the workspace's open invoice (the next one it will be sent), priced ceil(credits / 10) * 5 cents.
//
// What a day holds comes from the ledger (overage entries and their releases, by time), what is
// still to bill from the workspace's counter `overage_unbilled`; both are read under the
// workspace's row lock, which every credit movement takes too. A workspace's days are billed in
// order and `overage_billed_through` moves past them in the same transaction, so a day is billed
// once however often the job runs, and days the job missed are billed, each on its own, next time.
import type pg from 'pg';
import { base62 } from '../accounts/keys.js';
import { addDays, isoDay } from '../clock.js';
import { inTransaction } from '../db/pool.js';
import { CURRENCY, OVERAGE_BLOCK_CENTS, OVERAGE_BLOCK_CREDITS } from '../accounts/catalog.js';
import { invoiceForOverage } from './document-sources.js';
import type { PaymentProvider } from './provider.js';

/** 5 USD per 1,000 credits, rounded up to the next 5 cents: 1 → 5, 100 → 50, 1,001 → 505, 10,000 → 5,000. */
export const overageAmountCents = (credits: number): number =>
  Math.ceil(credits / OVERAGE_BLOCK_CREDITS) * OVERAGE_BLOCK_CENTS;

const monthOf = (day: string): string => `${day.slice(0, 7)}-01`;

export interface BilledItem {
  invoice_id: string;
  workspace_id: string;
  day: string;
  credits: number;
  amount_cents: number;
}

interface BillingState {
  overage_unbilled: number;
  billed_through: string | null;
  created_day: string;
  cancelled_day: string | null;
}

/** The workspace's open invoice for items of `day`'s month: an older open one is issued first. */
async function openInvoice(client: pg.PoolClient, workspace: string, day: string, now: Date): Promise<string> {
  const period = monthOf(day);
  const { rows } = await client.query<{ id: string; period_start: string }>(
    `SELECT id, period_start FROM invoices WHERE workspace_id = $1 AND status = 'open' FOR UPDATE`,
    [workspace],
  );
  const open = rows[0];
  if (open && open.period_start >= period) return open.id;
  if (open) {
    await client.query(`UPDATE invoices SET status = 'issued', issued_at = $2 WHERE id = $1`, [open.id, now]);
    await invoiceForOverage(client, open.id, now);
  }
  const id = `inv_${base62(20)}`;
  await client.query(`INSERT INTO invoices (id, workspace_id, period_start, created_at) VALUES ($1, $2, $3, $4)`, [
    id,
    workspace,
    period,
    now,
  ]);
  return id;
}

/**
 * Bills one workspace's overage, one item per day with overage, for the days before `untilDay`
 * (a cancelled workspace: through its cancellation day, everything it accrued; its open invoice is
 * then issued as the final one). Runs in the caller's transaction.
 */
export async function billWorkspace(
  client: pg.PoolClient,
  workspace: string,
  untilDay: string,
  now: Date,
): Promise<{ items: BilledItem[]; finalInvoice: string | null }> {
  const { rows } = await client.query<BillingState>(
    `SELECT overage_unbilled, overage_billed_through AS billed_through,
       (created_at AT TIME ZONE 'UTC')::date::text AS created_day,
       CASE WHEN subscription_status = 'cancelled' THEN (cancelled_at AT TIME ZONE 'UTC')::date::text END
         AS cancelled_day
     FROM workspaces WHERE id = $1 FOR UPDATE`,
    [workspace],
  );
  const w = rows[0];
  if (!w) throw new Error(`no workspace ${workspace}`);
  const cancelled = w.cancelled_day !== null;
  const first = w.billed_through ?? w.created_day;
  let last = addDays(untilDay, -1);
  if (cancelled) {
    // Nothing accrues after a cancellation: its day is billed at once, and whatever is still unbilled.
    if (w.cancelled_day! > last) last = w.cancelled_day!;
    if (w.overage_unbilled > 0 && first > last) last = first;
  }
  const items: BilledItem[] = [];
  if (first <= last) {
    // Accrual per day from the first unbilled day on; what the counter holds beyond that is older.
    const { rows: days } = await client.query<{ day: string; credits: number }>(
      `SELECT (at AT TIME ZONE 'UTC')::date::text AS day, -sum(amount)::bigint AS credits FROM credit_ledger
       WHERE workspace_id = $1 AND pool = 'overage' AND kind IN ('overage', 'refund') AND at >= utc_midnight($2::date)
       GROUP BY 1`,
      [workspace, first],
    );
    const accrued = new Map(days.map((d) => [d.day, d.credits]));
    const later = days.filter((d) => d.day > last).reduce((n, d) => n + d.credits, 0);
    // `carry` starts with overage older than `first` and keeps a day's net release (negative) for the next.
    let carry = w.overage_unbilled - days.reduce((n, d) => n + d.credits, 0);
    for (let day = first; day <= last; day = addDays(day, 1)) {
      // A cancelled workspace accrues nothing more: its last item takes whatever is left.
      const credits = carry + (accrued.get(day) ?? 0) + (cancelled && day === last ? later : 0);
      if (credits <= 0) {
        carry = credits;
        continue;
      }
      carry = 0;
      const invoice = await openInvoice(client, workspace, day, now);
      const amount = overageAmountCents(credits);
      await client.query(
        `INSERT INTO invoice_items (invoice_id, workspace_id, day, credits, amount_cents, created_at)
         VALUES ($1, $2, $3, $4, $5, $6)`,
        [invoice, workspace, day, credits, amount, now],
      );
      items.push({ invoice_id: invoice, workspace_id: workspace, day, credits, amount_cents: amount });
    }
    const billed = items.reduce((n, i) => n + i.credits, 0);
    await client.query(
      'UPDATE workspaces SET overage_unbilled = overage_unbilled - $2, overage_billed_through = $3 WHERE id = $1',
      [workspace, billed, addDays(last, 1)],
    );
  }
  let finalInvoice: string | null = null;
  if (cancelled) {
    const { rows: final } = await client.query<{ id: string }>(
      `UPDATE invoices SET status = 'issued', issued_at = $2, final = true
       WHERE workspace_id = $1 AND status = 'open' RETURNING id`,
      [workspace, now],
    );
    finalInvoice = final[0]?.id ?? null;
    if (finalInvoice) await invoiceForOverage(client, finalInvoice, now);
  }
  return { items, finalInvoice };
}

export interface OverageRun {
  workspaces: number;
  items: number;
  credits: number;
  amount_cents: number;
  invoices_issued: number;
}

/**
 * The daily run as of `asOf`: every workspace with overage to bill gets its items for the days
 * before asOf's day, then every open invoice whose month is over is issued.
 */
export async function billOverage(pool: pg.Pool, asOf: Date, now: Date): Promise<OverageRun> {
  const untilDay = isoDay(asOf);
  const { rows } = await pool.query<{ id: string }>(
    `SELECT id FROM workspaces w WHERE overage_unbilled > 0
       OR (subscription_status = 'cancelled'
           AND EXISTS (SELECT 1 FROM invoices i WHERE i.workspace_id = w.id AND i.status = 'open'))
     ORDER BY id`,
  );
  const run: OverageRun = { workspaces: 0, items: 0, credits: 0, amount_cents: 0, invoices_issued: 0 };
  for (const { id } of rows) {
    const { items } = await inTransaction(pool, (client) => billWorkspace(client, id, untilDay, now));
    if (items.length > 0) run.workspaces++;
    run.items += items.length;
    run.credits += items.reduce((n, i) => n + i.credits, 0);
    run.amount_cents += items.reduce((n, i) => n + i.amount_cents, 0);
  }
  // Each invoice issued gets its document in the same transaction.
  const issued = await inTransaction(pool, async (client) => {
    const { rows: ids } = await client.query<{ id: string }>(
      `UPDATE invoices SET status = 'issued', issued_at = $2
       WHERE status = 'open' AND (period_start + interval '1 month')::date <= $1::date RETURNING id`,
      [untilDay, now],
    );
    for (const { id } of ids) await invoiceForOverage(client, id, now);
    return ids;
  });
  run.invoices_issued = issued.length;
  await settleInvoices(
    pool,
    issued.map((i) => i.id),
    now,
  );
  return run;
}

/**
 * Hands what is billed here to the card processor, when there is one: each unpaid item of a
 * workspace with a customer there becomes a pending invoice item (on the customer's next invoice),
 * and each final invoice becomes an invoice there. Apart from the database transaction, so that a
 * slow processor never holds a workspace's row lock; an item that failed is sent on the next run.
 */
export async function sendToProcessor(
  pool: pg.Pool,
  provider: PaymentProvider,
): Promise<{ items_sent: number; final_invoices_sent: number }> {
  const invoicing = provider.invoicing;
  if (!invoicing) return { items_sent: 0, final_invoices_sent: 0 };
  const { rows: items } = await pool.query<{
    id: number;
    workspace_id: string;
    customer: string;
    day: string;
    credits: number;
    amount_cents: number;
  }>(
    `SELECT i.id, i.workspace_id, w.stripe_customer_id AS customer, i.day::text, i.credits, i.amount_cents
     FROM invoice_items i JOIN workspaces w ON w.id = i.workspace_id
     WHERE i.stripe_invoice_item_id IS NULL AND i.paid_at IS NULL AND w.stripe_customer_id IS NOT NULL ORDER BY i.id`,
  );
  for (const item of items) {
    const ref = await invoicing.addInvoiceItem({
      id: item.id,
      workspaceId: item.workspace_id,
      customer: item.customer,
      day: item.day,
      credits: item.credits,
      amountCents: item.amount_cents,
      currency: CURRENCY,
    });
    await pool.query('UPDATE invoice_items SET stripe_invoice_item_id = $2 WHERE id = $1', [item.id, ref]);
  }
  const { rows: finals } = await pool.query<{ id: string; workspace_id: string; customer: string }>(
    `SELECT v.id, v.workspace_id, w.stripe_customer_id AS customer
     FROM invoices v JOIN workspaces w ON w.id = v.workspace_id
     WHERE v.final AND v.status = 'issued' AND v.stripe_invoice_id IS NULL AND w.stripe_customer_id IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM invoice_items i WHERE i.invoice_id = v.id AND i.stripe_invoice_item_id IS NULL)
     ORDER BY v.id`,
  );
  for (const f of finals) {
    const ref = await invoicing.finalInvoice({ id: f.id, workspaceId: f.workspace_id, customer: f.customer });
    await pool.query('UPDATE invoices SET stripe_invoice_id = $2 WHERE id = $1', [f.id, ref]);
  }
  return { items_sent: items.length, final_invoices_sent: finals.length };
}

type Db = pg.Pool | pg.PoolClient;

/** Those of the invoices that are issued and have every item paid are paid. */
async function settleInvoices(db: Db, ids: readonly string[], now: Date): Promise<void> {
  await db.query(
    `UPDATE invoices v SET status = 'paid', paid_at = $2 WHERE v.id = ANY($1) AND v.status = 'issued'
       AND NOT EXISTS (SELECT 1 FROM invoice_items i WHERE i.invoice_id = v.id AND i.paid_at IS NULL)`,
    [ids, now],
  );
}

/**
 * Marks invoice items paid, with a ledger entry each (`overage_payment`, pool overage) that brings
 * the balance back up by the credits paid for. Items already paid are left alone; returns how many
 * were newly paid.
 */
export async function payItems(
  client: pg.PoolClient,
  where: { invoiceId: string } | { stripeItemIds: readonly string[] },
  now: Date,
  note: string,
): Promise<number> {
  const { rows } = await client.query<{
    id: number;
    workspace_id: string;
    day: string;
    credits: number;
    invoice_id: string;
  }>(
    `UPDATE invoice_items SET paid_at = $2
     WHERE paid_at IS NULL AND ${'invoiceId' in where ? 'invoice_id = $1' : 'stripe_invoice_item_id = ANY($1)'}
     RETURNING id, workspace_id, day::text, credits, invoice_id`,
    ['invoiceId' in where ? where.invoiceId : where.stripeItemIds, now],
  );
  for (const item of rows) {
    await client.query(
      `INSERT INTO credit_ledger (workspace_id, at, kind, pool, amount, note)
       VALUES ($1, $2, 'overage_payment', 'overage', $3, $4)`,
      [item.workspace_id, now, item.credits, `overage of ${item.day} paid (invoice ${item.invoice_id}, ${note})`],
    );
  }
  await settleInvoices(client, [...new Set(rows.map((r) => r.invoice_id))], now);
  return rows.length;
}
