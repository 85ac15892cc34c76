// What is sold, as buyers see it: the packs of accounts/packs.ts with their names, in US dollars.
import { PACKS, type PackSlug } from '../accounts/packs.js';

/** The pack slugs in the spec's order (for schemas and listings). */
export const PACK_SLUGS = Object.keys(PACKS) as [PackSlug, ...PackSlug[]];

export const PACK_TITLES: Readonly<Record<PackSlug, string>> = {
  starter: 'Starter',
  investigator: 'Investigator',
  bulk: 'Bulk',
  power: 'Power',
};

/** Every price and invoice is in US dollars. */
export const CURRENCY = 'usd';

const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });

export const formatUsd = (cents: number): string => usd.format(cents / 100);
