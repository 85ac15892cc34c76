// Invoices as the operator and the processor's webhook see them: listed with their items, and
// paid (each paid item writes its `overage_payment` ledger entry).
import type pg from 'pg';
import { inTransaction } from '../db/pool.js';
import { BillingError } from './errors.js';
import { payItems } from './overage.js';
import { iso } from './sql.js';

interface InvoiceItem {
  day: string;
  credits: number;
  amount_cents: number;
  paid_at: string | null;
  stripe_invoice_item_id: string | null;
}

export interface Invoice {
  id: string;
  workspace_id: string;
  period_start: string;
  status: 'open' | 'issued' | 'paid';
  final: boolean;
  created_at: string;
  issued_at: string | null;
  paid_at: string | null;
  stripe_invoice_id: string | null;
  credits: number;
  amount_cents: number;
  items: InvoiceItem[];
}

export async function listInvoices(pool: pg.Pool, workspace: string): Promise<Invoice[]> {
  const { rows } = await pool.query<Invoice>(
    `SELECT v.id, v.workspace_id, v.period_start::text, v.status, v.final, ${iso('v.created_at')} AS created_at,
       ${iso('v.issued_at')} AS issued_at, ${iso('v.paid_at')} AS paid_at, v.stripe_invoice_id,
       coalesce(sum(i.credits), 0)::bigint AS credits, coalesce(sum(i.amount_cents), 0)::bigint AS amount_cents,
       coalesce(json_agg(json_build_object('day', i.day, 'credits', i.credits, 'amount_cents', i.amount_cents,
         'paid_at', ${iso('i.paid_at')}, 'stripe_invoice_item_id', i.stripe_invoice_item_id) ORDER BY i.day)
         FILTER (WHERE i.id IS NOT NULL), '[]') AS items
     FROM invoices v LEFT JOIN invoice_items i ON i.invoice_id = v.id
     WHERE v.workspace_id = $1 GROUP BY v.id ORDER BY v.period_start, v.created_at`,
    [workspace],
  );
  return rows;
}

/** The operator records an issued invoice as paid (the local provider collects nothing itself). */
export async function markInvoicePaid(
  pool: pg.Pool,
  id: string,
  now: Date,
  note: string,
): Promise<{ id: string; items_paid: number }> {
  return inTransaction(pool, async (client) => {
    const { rows } = await client.query<{ status: string }>('SELECT status FROM invoices WHERE id = $1 FOR UPDATE', [
      id,
    ]);
    if (!rows[0]) throw new BillingError(`no invoice ${id}`);
    if (rows[0].status === 'open')
      throw new BillingError(
        `invoice ${id} is still open (it collects this month's overage and is issued when the month is over)`,
      );
    if (rows[0].status === 'paid') throw new BillingError(`invoice ${id} is already paid`);
    return { id, items_paid: await payItems(client, { invoiceId: id }, now, note) };
  });
}

/** A paid processor invoice pays the items it carried (items already paid are left alone). */
export async function payProcessorItems(
  pool: pg.Pool,
  stripeItemIds: readonly string[],
  now: Date,
  note: string,
): Promise<number> {
  if (stripeItemIds.length === 0) return 0;
  return inTransaction(pool, (client) => payItems(client, { stripeItemIds }, now, note));
}
