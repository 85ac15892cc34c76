// The billing side's scheduled jobs: pack expiry (00:00 UTC), overage invoicing (01:00 UTC), missing
// documents (01:30 UTC) and low-balance alerts (every minute).
import type { Job } from '../jobs/job.js';
import { lowBalanceJob } from './alerts.js';
import { issueMissingDocuments } from './document-sources.js';
import { billOverage, sendToProcessor } from './overage.js';
import { paymentProvider } from './payments.js';

export const packExpiryJob: Job = {
  name: 'pack_expiry',
  schedule: '0 0 * * *',
  description:
    'closes credit packs on their anniversary (daily, 00:00 UTC), with a ledger entry for the credits each had left',
  atStartup: true,
  async run({ pool, asOf }) {
    const { rows } = await pool.query<{ expired: number }>('SELECT expire_packs(NULL, $1) AS expired', [asOf]);
    return { expired: rows[0]!.expired };
  },
};

export const overageBillingJob: Job = {
  name: 'overage_billing',
  schedule: '0 1 * * *',
  description:
    "bills each workspace's overage of every day before today as one invoice item " +
    '(daily, 01:00 UTC; missed days caught up), issues invoices of past months',
  atStartup: true,
  async run({ pool, config, clock, asOf }) {
    const run = await billOverage(pool, asOf, clock.now());
    return { ...run, ...(await sendToProcessor(pool, paymentProvider(config))) };
  },
};

/** A safety net: documents of payments recorded before documents existed, or whose issue failed. */
const documentsJob: Job = {
  name: 'billing_documents',
  schedule: '30 1 * * *',
  description: 'issues the receipts, invoices and credit notes missing for payments on record (daily, 01:30 UTC)',
  atStartup: true,
  async run({ pool }) {
    return { issued: await issueMissingDocuments(pool) };
  },
};

export const BILLING_JOBS: readonly Job[] = [packExpiryJob, overageBillingJob, documentsJob, lowBalanceJob];
