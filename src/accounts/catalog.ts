// The one catalog of what is sold: plans and credit packs with their prices, credits and features,
// and the rules priced with them. The gate (through the `plans` table, written from here at every
// start), billing, the checkout and pricing pages and the OpenAPI descriptions all read it.
// docs/contract.md, "Plans and credits".

export type Surface = 'rest' | 'mcp';

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
  /** Monitoring (docs/webhooks.md): how many of each a workspace may keep; null: not on this plan. */
  readonly monitoring: MonitoringLimits | null;
  /**
   * The live change stream (`GET /v1/changes/stream`, docs/contract.md, "Change feed"): how many a workspace may
   * hold open at once; 0: not on this plan (every plan reads the same changes as pages of `GET /v1/changes`).
   */
  readonly changeStreams: number;
  /** Bulk snapshots (`GET /v1/snapshots`, docs/contract.md, "Bulk snapshots"): the whole dataset to mirror. */
  readonly snapshots: boolean;
}

export interface MonitoringLimits {
  readonly endpoints: number;
  readonly watches: number;
  readonly savedSearches: number;
}

const both: readonly Surface[] = ['rest', 'mcp'];
type Defaulted = 'unlimited' | 'monitoring' | 'changeStreams' | 'snapshots';
const plan = (p: Omit<Plan, Defaulted> & Partial<Pick<Plan, Defaulted>>): Plan => ({
  unlimited: false,
  monitoring: null,
  changeStreams: 0,
  snapshots: false,
  ...p,
});

/** Pro has monitoring in beta, at a tenth of Growth's watches. */
const PRO_MONITORING: MonitoringLimits = { endpoints: 2, watches: 100, savedSearches: 5 };
const GROWTH_MONITORING: MonitoringLimits = { endpoints: 5, watches: 1_000, savedSearches: 25 };
const LEAD_FEED_MONITORING: MonitoringLimits = { endpoints: 10, watches: 5_000, savedSearches: 100 };
const ENTERPRISE_MONITORING: MonitoringLimits = { endpoints: 25, watches: 50_000, savedSearches: 500 };

/**
 * Open change streams at once. The stream is the feed's live edge for those who act on changes as they land (the
 * lead feed's new businesses, an enterprise's mirror); each holds a connection on a server for up to an hour, so
 * it comes with the plans whose volume pays for that: a mirror and a spare on Lead Feed, a team's consumers on
 * Enterprise.
 */
const LEAD_FEED_CHANGE_STREAMS = 2;
const ENTERPRISE_CHANGE_STREAMS = 10;

export const PLANS: Readonly<Record<PlanSlug, Plan>> = {
  free_trial: plan({
    slug: 'free_trial',
    name: 'Free Trial',
    monthlyCredits: 500,
    perMinute: 30,
    surfaces: ['rest'],
    leadFeed: false,
    csv: false,
    overage: false,
    priceCents: 0,
  }),
  developer: plan({
    slug: 'developer',
    name: 'Developer',
    monthlyCredits: 10_000,
    perMinute: 60,
    surfaces: both,
    leadFeed: false,
    csv: false,
    overage: true,
    priceCents: 1900,
  }),
  pro: plan({
    slug: 'pro',
    name: 'Pro',
    monthlyCredits: 50_000,
    perMinute: 150,
    surfaces: both,
    leadFeed: false,
    csv: true,
    overage: true,
    priceCents: 4900,
    monitoring: PRO_MONITORING,
  }),
  growth: plan({
    slug: 'growth',
    name: 'Growth',
    monthlyCredits: 250_000,
    perMinute: 300,
    surfaces: both,
    leadFeed: false,
    csv: true,
    overage: true,
    priceCents: 14900,
    monitoring: GROWTH_MONITORING,
  }),
  lead_feed: plan({
    slug: 'lead_feed',
    name: 'Lead Feed',
    monthlyCredits: 750_000,
    perMinute: 600,
    surfaces: both,
    leadFeed: true,
    csv: true,
    overage: true,
    priceCents: 29900,
    monitoring: LEAD_FEED_MONITORING,
    changeStreams: LEAD_FEED_CHANGE_STREAMS,
    // With the live stream: a mirror starts from a snapshot and follows the feed, the volume these plans are for.
    snapshots: true,
  }),
  enterprise: plan({
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
    monitoring: ENTERPRISE_MONITORING,
    changeStreams: ENTERPRISE_CHANGE_STREAMS,
    snapshots: true,
  }),
  mcp_starter: plan({
    slug: 'mcp_starter',
    name: 'MCP Starter',
    monthlyCredits: 1000,
    perMinute: 30,
    surfaces: ['mcp'],
    leadFeed: false,
    csv: false,
    overage: false,
    priceCents: 500,
  }),
};

/** A batch match (`POST /v1/entities/match`) costs this many credits per query it holds. */
export const CREDITS_PER_MATCH_QUERY = 1;

/**
 * An export (`POST /v1/exports`) costs a credit for each started block of this many rows it writes; plans with CSV
 * may export (the lead feed also needs the lead feed).
 */
export const EXPORT_ROWS_PER_CREDIT = 1000;

/**
 * A change stream costs a credit as it opens, which covers its first block of this many events, and a credit for
 * each further block it starts: a page of the same changes by `GET /v1/changes` costs as much (docs/contract.md,
 * "Change feed").
 */
export const STREAM_EVENTS_PER_CREDIT = 1000;

/**
 * A snapshot call (the list, or one manifest with its download links) costs this many credits; the files' downloads,
 * by those links, cost nothing more: the price is the manifest's, however large the files.
 */
export const SNAPSHOT_CALL_CREDITS = 1;

/** Test keys' own pool, per workspace and cycle. */
export const TEST_KEY_MONTHLY_CREDITS = 1000;
/** The trial: full access for 7 days, then the balance is capped once at this. */
export const TRIAL_DAYS = 7;
export const TRIAL_CAP = 100;

export const PACKS = {
  starter: { title: 'Starter', credits: 1_000, priceCents: 500 },
  investigator: { title: 'Investigator', credits: 5_000, priceCents: 2_300 },
  bulk: { title: 'Bulk', credits: 25_000, priceCents: 9_900 },
  power: { title: 'Power', credits: 100_000, priceCents: 34_900 },
} as const;

export type PackSlug = keyof typeof PACKS;

/** The pack slugs in the catalog's order (for schemas and listings). */
export const PACK_SLUGS = Object.keys(PACKS) as [PackSlug, ...PackSlug[]];

/** Packs are valid this many months, to 00:00 UTC on the anniversary of the purchase day. */
export const PACK_VALID_MONTHS = 12;
/** A pack is refundable this many days after purchase, while no more than this share of it is used. */
export const REFUND_DAYS = 14;
export const REFUND_MAX_USED_PERCENT = 10;

/** Overage: each started block of this many credits costs this many cents (5 USD per 1,000 credits). */
export const OVERAGE_BLOCK_CREDITS = 10;
export const OVERAGE_BLOCK_CENTS = 5;

/** Every price and invoice is in US dollars. */
export const CURRENCY = 'usd';

/** "$1,234.05", "-$5.00": from integer cents with integer arithmetic only (money is never a float here). */
export const formatUsd = (cents: number): string => {
  const abs = Math.abs(cents);
  const dollars = Math.trunc(abs / 100).toLocaleString('en-US');
  return `${cents < 0 ? '-' : ''}$${dollars}.${String(abs % 100).padStart(2, '0')}`;
};

/** "starter (1,000 credits, $5.00), ...": the packs in one line, for descriptions. */
export const packsInWords = (): string =>
  PACK_SLUGS.map(
    (s) => `${s} (${PACKS[s].credits.toLocaleString('en-US')} credits, ${formatUsd(PACKS[s].priceCents)})`,
  ).join(', ');
