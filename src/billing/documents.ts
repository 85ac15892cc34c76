// Billing documents (docs/billing.md, "Payment history"): a receipt for each payment taken, an invoice
// for overage owed, a credit note for money given back. Each is issued once per source, in the
// transaction of the money movement it documents, numbered without gaps, with the buyer's billing
// details and the seller's as they are at that moment, and never changed after (a trigger refuses it).
import type pg from 'pg';
import { base62 } from '../accounts/keys.js';
import type { Seller } from '../config/index.js';
import type { ProviderName } from './provider.js';
import { iso } from './sql.js';

type DocumentKind = 'receipt' | 'invoice' | 'credit_note';

/** One line; amounts are integers of cents (negative on a credit note). */
export interface DocumentLine {
  readonly description: string;
  readonly quantity: number;
  readonly unit_cents: number;
  readonly amount_cents: number;
}

export interface Party {
  readonly name: string;
  readonly address: string | null;
  readonly country: string | null;
  readonly tax_id: string | null;
  readonly email: string | null;
}

export interface BillingDocument {
  id: string;
  number: string;
  workspace_id: string;
  kind: DocumentKind;
  source: string;
  provider: ProviderName;
  issued_at: string;
  currency: string;
  lines: DocumentLine[];
  total_cents: number;
  buyer: Party;
  seller: Party;
}

export interface DocumentIssue {
  readonly workspaceId: string;
  readonly kind: DocumentKind;
  /** What it documents, unique: a second issue for it is a no-op. */
  readonly source: string;
  readonly provider: ProviderName;
  readonly at: Date;
  readonly currency: string;
  readonly lines: readonly DocumentLine[];
}

/** Numbers are RL- and six digits and up (RL-000001): room for a million documents before they lengthen. */
const NUMBER_DIGITS = 6;

const COLUMNS = `id, number, workspace_id, kind, source, provider, ${iso('issued_at')} AS issued_at, currency, lines,
  total_cents, buyer, seller`;

/**
 * Issues a document in the caller's transaction; null when its source already has one. The counter row
 * is locked first, so issues are numbered in turn, a repeated source is seen before a number is taken,
 * and a rolled-back issue gives its number back.
 */
export async function issueDocument(client: pg.PoolClient, d: DocumentIssue): Promise<string | null> {
  await client.query('SELECT last FROM billing_document_counter FOR UPDATE');
  if ((await client.query('SELECT 1 FROM billing_documents WHERE source = $1', [d.source])).rowCount) return null;
  const total = d.lines.reduce((n, l) => n + l.amount_cents, 0);
  const id = `doc_${base62(20)}`;
  // The buyer: the billing details set by the owner, else the workspace's name and the owner's address.
  await client.query(
    `WITH n AS (UPDATE billing_document_counter SET last = last + 1 RETURNING last)
     INSERT INTO billing_documents (id, number, workspace_id, kind, source, provider, issued_at, currency, lines,
                                    total_cents, buyer, seller)
     SELECT $1, 'RL-' || lpad(n.last::text, ${NUMBER_DIGITS}, '0'), w.id, $3, $4, $5, $6, $7, $8::jsonb, $9,
       json_build_object('name', coalesce(d.company, w.name), 'address', d.address, 'country', d.country,
         'tax_id', d.tax_id, 'email', coalesce(d.email, (SELECT u.email FROM workspace_members m
           JOIN users u ON u.id = m.user_id WHERE m.workspace_id = w.id AND m.role = 'owner'))),
       (SELECT json_build_object('name', s.name, 'address', s.address, 'country', NULL, 'tax_id', s.tax_id,
         'email', s.email) FROM billing_seller s)
     FROM n, workspaces w LEFT JOIN billing_details d ON d.workspace_id = w.id
     WHERE w.id = $2`,
    [id, d.workspaceId, d.kind, d.source, d.provider, d.at, d.currency, JSON.stringify(d.lines), total],
  );
  return id;
}

/** The seller's details as configured, for the documents issued from now on. */
export async function syncSeller(pool: pg.Pool, seller: Seller): Promise<void> {
  await pool.query('UPDATE billing_seller SET name = $1, address = $2, tax_id = $3, email = $4', [
    seller.name,
    seller.address,
    seller.taxId,
    seller.email,
  ]);
}

/** A workspace's documents, newest first. */
export async function listDocuments(pool: pg.Pool, workspaceId: string): Promise<BillingDocument[]> {
  const { rows } = await pool.query<BillingDocument>(
    `SELECT ${COLUMNS} FROM billing_documents WHERE workspace_id = $1 ORDER BY issued_at DESC, number DESC`,
    [workspaceId],
  );
  return rows;
}

/** One document of the workspace; null for another workspace's, as for none. */
export async function getDocument(pool: pg.Pool, workspaceId: string, id: string): Promise<BillingDocument | null> {
  const { rows } = await pool.query<BillingDocument>(
    `SELECT ${COLUMNS} FROM billing_documents WHERE id = $1 AND workspace_id = $2`,
    [id, workspaceId],
  );
  return rows[0] ?? null;
}

export const isDocumentId = (s: unknown): s is string => typeof s === 'string' && /^doc_[0-9A-Za-z]{20}$/.test(s);
