// GET /v1/account/usage: the calling key's metered requests this UTC month against its quota.
import type pg from 'pg';
import type { Caller } from './gate.js';
import { PLANS, TEST_KEY_MONTHLY_CREDITS } from './catalog.js';

export interface AccountUsage {
  events_count: number;
  monthly_quota: number;
  percent_used: number;
  reset_date: string;
  plan: string;
}

export async function accountUsage(pool: pg.Pool, caller: Caller, now: Date): Promise<AccountUsage> {
  const { rows } = await pool.query<{ live: number; test: number }>(
    `SELECT CASE WHEN usage_month = month_start($2) THEN usage_live ELSE 0 END AS live,
            CASE WHEN usage_month = month_start($2) THEN usage_test ELSE 0 END AS test
     FROM workspaces WHERE id = $1`,
    [caller.workspaceId, now],
  );
  const plan = PLANS[caller.plan];
  const test = caller.keyKind === 'test';
  const events = test ? rows[0]!.test : rows[0]!.live;
  const quota = test ? TEST_KEY_MONTHLY_CREDITS : plan.monthlyCredits;
  const nextCycle = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return {
    events_count: events,
    monthly_quota: quota,
    percent_used: plan.unlimited && !test ? 0 : Math.round((events / quota) * 10000) / 100,
    reset_date: nextCycle.toISOString().replace('.000Z', 'Z'),
    plan: caller.plan,
  };
}
