// A workspace's billing details (docs/billing.md, "Billing details"): what the owner sets for the
// documents issued from then on. Checked by one zod schema, whose messages the web form shows by field.
import type pg from 'pg';
import { z } from 'zod';
import { iso } from './sql.js';

export interface BillingDetails {
  company: string;
  address: string;
  country: string;
  tax_id: string | null;
  email: string | null;
  updated_at: string;
}

/** Lengths that fit a document's address block, and any real company name, street or tax number. */
const COMPANY_MAX = 200;
const ADDRESS_MAX = 500;
const TAX_ID_MAX = 50;
const EMAIL_MAX = 254;

const regions = new Intl.DisplayNames(['en'], { type: 'region' });
/** ISO 3166-1 alpha-2, as Intl knows it: an unknown code names no region. */
const isCountry = (code: string): boolean =>
  /^[A-Z]{2}$/.test(code) && regions.of(code) !== code && regions.of(code) !== 'Unknown Region';
export const countryName = (code: string): string => regions.of(code) ?? code;

const optional = (max: number, what: string) =>
  z
    .string()
    .trim()
    .max(max, { error: `${what} has at most ${max} characters.` })
    .transform((v) => (v === '' ? null : v));

export const BillingDetailsInput = z.strictObject({
  company: z
    .string({ error: 'Enter the company or your name.' })
    .trim()
    .min(1, { error: 'Enter the company or your name.' })
    .max(COMPANY_MAX, { error: `A name has at most ${COMPANY_MAX} characters.` }),
  address: z
    .string({ error: 'Enter the billing address.' })
    .trim()
    .min(1, { error: 'Enter the billing address.' })
    .max(ADDRESS_MAX, { error: `An address has at most ${ADDRESS_MAX} characters.` })
    .transform((v) => v.replace(/\r\n?/g, '\n')),
  country: z
    .string({ error: 'Choose a country.' })
    .trim()
    .toUpperCase()
    .refine(isCountry, { error: 'Enter a country as its two-letter ISO code, such as US, DE or FR.' }),
  tax_id: optional(TAX_ID_MAX, 'A tax id').refine((v) => v === null || /^[A-Za-z0-9 .\-/]+$/.test(v), {
    error: 'A tax id has letters, digits, spaces, dots, dashes and slashes only.',
  }),
  email: optional(EMAIL_MAX, 'An email address').pipe(
    z.email({ error: 'Enter an email address such as billing@example.com.' }).nullable(),
  ),
});
export type BillingDetailsInput = z.output<typeof BillingDetailsInput>;

export async function getBillingDetails(db: pg.Pool, workspaceId: string): Promise<BillingDetails | null> {
  const { rows } = await db.query<BillingDetails>(
    `SELECT company, address, country, tax_id, email, ${iso('updated_at')} AS updated_at
     FROM billing_details WHERE workspace_id = $1`,
    [workspaceId],
  );
  return rows[0] ?? null;
}

/** Sets the details for the documents issued from now on; documents already issued keep theirs. */
export async function setBillingDetails(
  db: pg.Pool,
  workspaceId: string,
  d: BillingDetailsInput,
  now: Date,
): Promise<void> {
  await db.query(
    `INSERT INTO billing_details (workspace_id, company, address, country, tax_id, email, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (workspace_id) DO UPDATE SET company = $2, address = $3, country = $4, tax_id = $5, email = $6,
       updated_at = $7`,
    [workspaceId, d.company, d.address, d.country, d.tax_id, d.email, now],
  );
}
