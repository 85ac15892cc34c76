// Low-balance alerts (docs/billing.md, "Low-balance alerts"): a job reads the balances of the workspaces
// that set a threshold, from the counters the gate keeps, and mails the billing address (else the
// owner's) once when the balance is at or below it; the alert is re-armed when the balance is above it
// again. A job rather than the gate: the gate's round trip stays as it is, and an alert a minute late
// is still in time.
import path from 'node:path';
import type pg from 'pg';
import { createMailer, type Mail } from '../accounts/mail.js';
import type { Job } from '../jobs/job.js';

interface Crossing {
  id: string;
  name: string;
  balance: number;
  threshold: number;
  to: string | null;
}

/** The balance of billing.ts's page and balance route: monthly + packs − overage not yet paid. */
const BALANCES = `
  SELECT w.id, w.name, w.low_balance_threshold AS threshold, w.low_balance_alerted_at,
    (w.monthly_remaining
      + (SELECT coalesce(sum(p.remaining), 0) FROM credit_packs p
          WHERE p.workspace_id = w.id AND p.closed_at IS NULL AND p.expires_at > $1)
      - w.overage_unbilled
      - (SELECT coalesce(sum(i.credits), 0) FROM invoice_items i WHERE i.workspace_id = w.id AND i.paid_at IS NULL)
      )::bigint AS balance
  FROM workspaces w WHERE w.low_balance_threshold IS NOT NULL`;

const lowBalanceMail = (c: Crossing & { to: string }, base: string): Mail => ({
  to: c.to,
  subject: `Registry Lookup: the balance of ${c.name} is ${c.balance.toLocaleString('en-US')} credits`,
  text:
    `The credit balance of the workspace "${c.name}" is ${c.balance.toLocaleString('en-US')} credits, at or ` +
    `below the ${c.threshold.toLocaleString('en-US')} credits you chose to be told about.\n\n` +
    `Buy a credit pack or change the plan: ${base}/account/billing\n\n` +
    `You get this mail once each time the balance falls to the threshold; change or remove it on the same page.\n` +
    '\n-- \nRegistry Lookup\n',
});

/**
 * One pass: re-arms the alerts of balances above their threshold, marks those at or below it that were
 * armed, and returns them to mail. One statement, so a crossing is taken by one pass only.
 */
async function crossings(pool: pg.Pool, now: Date): Promise<{ crossed: Crossing[]; rearmed: number }> {
  const { rows } = await pool.query<Crossing & { rearm: boolean }>(
    `WITH b AS (${BALANCES}),
     rearm AS (UPDATE workspaces w SET low_balance_alerted_at = NULL FROM b
       WHERE w.id = b.id AND b.low_balance_alerted_at IS NOT NULL AND b.balance > b.threshold RETURNING w.id),
     alert AS (UPDATE workspaces w SET low_balance_alerted_at = $1 FROM b
       WHERE w.id = b.id AND b.low_balance_alerted_at IS NULL AND b.balance <= b.threshold
       RETURNING w.id, w.name, b.balance, b.threshold)
     SELECT a.*, false AS rearm, coalesce(d.email, (SELECT u.email FROM workspace_members m
         JOIN users u ON u.id = m.user_id WHERE m.workspace_id = a.id AND m.role = 'owner')) AS to
       FROM alert a LEFT JOIN billing_details d ON d.workspace_id = a.id
     UNION ALL SELECT id, NULL, NULL, NULL, true, NULL FROM rearm`,
    [now],
  );
  return { crossed: rows.filter((r) => !r.rearm), rearmed: rows.filter((r) => r.rearm).length };
}

export const lowBalanceJob: Job = {
  name: 'low_balance_alerts',
  schedule: '* * * * *',
  description: 'mails the owner once when a workspace balance falls to the threshold chosen (every minute)',
  async run({ pool, config, clock, log }) {
    const { crossed, rearmed } = await crossings(pool, clock.now());
    if (crossed.length === 0) return { alerted: 0, rearmed };
    const mailer = createMailer(
      { smtpUrl: config.web.smtpUrl, from: config.web.mailFrom, dir: path.join(config.dataDir, 'mail') },
      log,
    );
    let alerted = 0;
    try {
      for (const c of crossed) {
        if (!c.to) continue;
        try {
          await mailer.send(lowBalanceMail({ ...c, to: c.to }, config.billing.publicBaseUrl));
          alerted++;
        } catch (err) {
          // Not sent: armed again, so the next pass tries again.
          await pool.query('UPDATE workspaces SET low_balance_alerted_at = NULL WHERE id = $1', [c.id]);
          log(`low-balance mail to ${c.to} failed: ${(err as Error).message}`);
        }
      }
    } finally {
      mailer.close();
    }
    return { alerted, rearmed };
  },
};
