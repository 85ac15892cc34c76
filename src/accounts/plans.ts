// The plans of decisions.md ("Plans and credits"). This is the one definition: the database's
// `plans` table is written from it at every start, so the SQL gate reads the same numbers.
import type pg from 'pg';

export type Surface = 'rest' | 'mcp';

export interface Plan {
  readonly slug: PlanSlug;
  readonly name: string;
  /** Credits granted each cycle (the trial: once, at signup). */
  readonly monthlyCredits: number;
  readonly perMinute: number;
  readonly surfaces: readonly Surface[];
  readonly leadFeed: boolean;
  readonly csv: boolean;
  /** Keeps serving past the monthly grant, billed as overage (unless past due). */
  readonly overage: boolean;
  /** Shown as unlimited: usage percent is 0. */
  readonly unlimited: boolean;
  /** Monthly price in cents (null: custom). */
  readonly priceCents: number | null;
}

export const PLAN_SLUGS = [
  'free_trial',
  'developer',
  'pro',
  'growth',
  'lead_feed',
  'enterprise',
  'mcp_starter',
] as const;
export type PlanSlug = (typeof PLAN_SLUGS)[number];

const both: readonly Surface[] = ['rest', 'mcp'];

export const PLANS: Readonly<Record<PlanSlug, Plan>> = {
  free_trial: {
    slug: 'free_trial',
    name: 'Free Trial',
    monthlyCredits: 500,
    perMinute: 30,
    surfaces: ['rest'],
    leadFeed: false,
    csv: false,
    overage: false,
    unlimited: false,
    priceCents: 0,
  },
  developer: {
    slug: 'developer',
    name: 'Developer',
    monthlyCredits: 10_000,
    perMinute: 60,
    surfaces: both,
    leadFeed: false,
    csv: false,
    overage: true,
    unlimited: false,
    priceCents: 1900,
  },
  pro: {
    slug: 'pro',
    name: 'Pro',
    monthlyCredits: 50_000,
    perMinute: 150,
    surfaces: both,
    leadFeed: false,
    csv: true,
    overage: true,
    unlimited: false,
    priceCents: 4900,
  },
  growth: {
    slug: 'growth',
    name: 'Growth',
    monthlyCredits: 250_000,
    perMinute: 300,
    surfaces: both,
    leadFeed: false,
    csv: true,
    overage: true,
    unlimited: false,
    priceCents: 14900,
  },
  lead_feed: {
    slug: 'lead_feed',
    name: 'Lead Feed',
    monthlyCredits: 750_000,
    perMinute: 600,
    surfaces: both,
    leadFeed: true,
    csv: true,
    overage: true,
    unlimited: false,
    priceCents: 29900,
  },
  enterprise: {
    slug: 'enterprise',
    name: 'Enterprise',
    monthlyCredits: 2_000_000_000,
    perMinute: 1200,
    surfaces: both,
    leadFeed: true,
    csv: true,
    overage: false,
    unlimited: true,
    priceCents: null,
  },
  mcp_starter: {
    slug: 'mcp_starter',
    name: 'MCP Starter',
    monthlyCredits: 1000,
    perMinute: 30,
    surfaces: ['mcp'],
    leadFeed: false,
    csv: false,
    overage: false,
    unlimited: false,
    priceCents: 500,
  },
};

/** Test keys' own pool, per workspace and cycle (decisions.md). */
export const TEST_KEY_MONTHLY_CREDITS = 1000;
/** The trial: full access for 7 days, then the balance is capped once at this. */
export const TRIAL_DAYS = 7;
export const TRIAL_CAP = 100;

export function isPlanSlug(s: string): s is PlanSlug {
  return (PLAN_SLUGS as readonly string[]).includes(s);
}

/** Writes the plan table the SQL gate reads. */
export async function syncPlans(pool: pg.Pool): Promise<void> {
  const plans = Object.values(PLANS);
  await pool.query(
    `INSERT INTO plans (slug, monthly_credits, per_minute, rest, mcp, lead_feed, csv, overage)
     SELECT * FROM unnest($1::text[], $2::bigint[], $3::int[], $4::bool[], $5::bool[], $6::bool[], $7::bool[], $8::bool[])
     ON CONFLICT (slug) DO UPDATE SET monthly_credits = excluded.monthly_credits, per_minute = excluded.per_minute,
       rest = excluded.rest, mcp = excluded.mcp, lead_feed = excluded.lead_feed, csv = excluded.csv, overage = excluded.overage`,
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
