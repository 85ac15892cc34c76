// GET /v1/account/usage: the calling key's metered requests this UTC month against its quota; and the
// account pages' view of it, with the daily requests by surface.
import type pg from 'pg';
import type { Caller } from './gate.js';
import { PLANS, TEST_KEY_MONTHLY_CREDITS, type PlanSlug } from './catalog.js';

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

/** The account pages: the workspace's live metered requests this month against its plan's quota. */
export async function workspaceUsage(pool: pg.Pool, workspaceId: string, now: Date): Promise<AccountUsage> {
  const { rows } = await pool.query<{ plan: PlanSlug }>('SELECT plan FROM workspaces WHERE id = $1', [workspaceId]);
  const plan = rows[0]!.plan;
  return accountUsage(pool, { workspaceId, keyId: null, userId: null, keyKind: 'live', plan, perMinute: 0 }, now);
}

export interface DailyUsage {
  /** `YYYY-MM-DD`, every day of the month up to today. */
  day: string;
  rest: number;
  mcp: number;
}

/**
 * Metered requests (credits kept) of the workspace's live keys and members, per UTC day of this month
 * and surface, as the request logs add them up (within a second of each request).
 */
export async function dailyUsage(pool: pg.Pool, workspaceId: string, now: Date): Promise<DailyUsage[]> {
  const { rows } = await pool.query<DailyUsage>(
    // A day has a row per key that was used (at most the workspace's keys and its members' row).
    `SELECT to_char(d, 'YYYY-MM-DD') AS day, coalesce(sum(u.rest), 0)::int AS rest,
            coalesce(sum(u.mcp), 0)::int AS mcp
     FROM generate_series(month_start($2), ($2 AT TIME ZONE 'UTC')::date, interval '1 day') AS d
     LEFT JOIN usage_days u ON u.workspace_id = $1 AND u.day = d::date
     GROUP BY d ORDER BY d`,
    [workspaceId, now],
  );
  return rows;
}
