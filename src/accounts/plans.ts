// The plans of the catalog as the SQL gate reads them: the `plans` table is written from the catalog
// at every start, so the gate and the code always agree.
import type pg from 'pg';
import { PLAN_SLUGS, PLANS, type PlanSlug } from './catalog.js';

export function isPlanSlug(s: string): s is PlanSlug {
  return (PLAN_SLUGS as readonly string[]).includes(s);
}

/** Writes the plan table the SQL gate reads. */
export async function syncPlans(pool: pg.Pool): Promise<void> {
  const plans = Object.values(PLANS);
  await pool.query(
    `INSERT INTO plans (slug, monthly_credits, per_minute, rest, mcp, lead_feed, csv, overage)
     SELECT * FROM unnest($1::text[], $2::bigint[], $3::int[], $4::bool[], $5::bool[], $6::bool[], $7::bool[],
                          $8::bool[])
     ON CONFLICT (slug) DO UPDATE SET monthly_credits = excluded.monthly_credits, per_minute = excluded.per_minute,
       rest = excluded.rest, mcp = excluded.mcp, lead_feed = excluded.lead_feed, csv = excluded.csv,
       overage = excluded.overage`,
    [
      plans.map((p) => p.slug),
      plans.map((p) => p.monthlyCredits),
      plans.map((p) => p.perMinute),
      plans.map((p) => p.surfaces.includes('rest')),
      plans.map((p) => p.surfaces.includes('mcp')),
      plans.map((p) => p.leadFeed),
      plans.map((p) => p.csv),
      plans.map((p) => p.overage),
    ],
  );
}
