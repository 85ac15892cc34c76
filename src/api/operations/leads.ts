import { z } from 'zod';
import { canonicalCounty } from '../../registry/counties.js';
import { defineOperation } from '../operation.js';
import { entityTypeCode, isoDate, pagination, text } from '../params.js';
import { LeadHit, listEnvelope } from '../schemas.js';
import { listResult, USE_NOTE } from './list.js';

export const county = z
  .string({ error: 'must be a single text value' })
  .max(40, { error: 'must be at most 40 characters' })
  .transform((v, ctx) => {
    const c = canonicalCounty(v);
    if (!c) ctx.addIssue({ code: 'custom', message: 'must be one of the 67 Florida counties' });
    return c ?? v;
  })
  .meta({ description: 'Florida county, ignoring case; a trailing "County" is ignored (Miami-Dade, St. Johns, Orange County).' });

export const listNewBusinessLeads = defineOperation({
  name: 'listNewBusinessLeads',
  tool: 'list_new_business_leads',
  path: '/leads/new-businesses',
  title: 'New-business leads',
  description: `Newly formed entities with the county of their principal ZIP, newest first: filter by Florida county, city, entity type and filing date range. Lead Feed and Enterprise plans only. ${USE_NOTE}`,
  params: z.strictObject({
    county: county.optional(),
    city: text(1, 60, 'Principal city, ignoring case.').optional(),
    entity_type: entityTypeCode.meta({ description: 'Registry entity type code, UPPERCASE (FLAL, DOMP...).' }).optional(),
    date_from: isoDate('Filed on or after this date.').optional(),
    date_to: isoDate('Filed on or before this date (inclusive).').optional(),
    ...pagination(50, 500),
  }),
  kind: 'list',
  result: LeadHit,
  response: listEnvelope(LeadHit),
  metered: true,
  leadFeed: true,
  errors: [400, 403],
  async handle(p, ctx) {
    return listResult(await ctx.services.search.leads(p), p);
  },
});
