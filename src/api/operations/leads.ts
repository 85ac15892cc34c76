import { z } from 'zod';
import { LEAD_FILE_COLUMNS, LeadFileRow, LeadHit } from '../../search/index.js';
import { toCsv } from '../csv.js';
import { defineOperation } from '../operation.js';
import { county, entityTypeCode, isoDate, pagination, text } from '../params.js';
import { listEnvelope } from '../schemas.js';
import { paged, USE_NOTE } from './list.js';

export const listNewBusinessLeads = defineOperation({
  name: 'listNewBusinessLeads',
  tag: 'Leads',
  tool: 'list_new_business_leads',
  path: '/leads/new-businesses',
  title: 'New-business leads',
  description:
    'Newly formed entities with the county of their principal ZIP, newest first: ' +
    'filter by Florida county, city, entity type and filing date range. ' +
    `Lead Feed and Enterprise plans only. ${USE_NOTE}`,
  params: z.strictObject({
    county: county.optional(),
    city: text(1, 60, 'Principal city, ignoring case.').optional(),
    entity_type: entityTypeCode
      .meta({ description: 'Registry entity type code, UPPERCASE (FLAL, DOMP...).' })
      .optional(),
    date_from: isoDate('Filed on or after this date.').optional(),
    date_to: isoDate('Filed on or before this date (inclusive).').optional(),
    ...pagination(50, 500),
  }),
  kind: 'list',
  result: LeadHit,
  response: listEnvelope(LeadHit),
  metered: true,
  leadFeed: true,
  errors: [400, 403, 410],
  async handle(p, ctx) {
    return paged(ctx, this.name, p, (page, walk) => ctx.services.search.leads({ ...p, ...page }, walk));
  },
});

export const newBusinessesDailyFile = defineOperation({
  name: 'getNewBusinessesDailyFile',
  tag: 'Leads',
  tool: null,
  path: '/leads/new-businesses/daily.csv',
  title: 'New businesses of a day, enriched (CSV)',
  description:
    'Every formation filed on a date, as CSV: county, principal and mailing addresses, ' +
    'registered agent with address, officer names and titles (never officer addresses). ' +
    `Lead Feed and Enterprise plans. ${USE_NOTE}`,
  params: z.strictObject({ date: isoDate('The filing date, YYYY-MM-DD.') }),
  kind: 'file',
  result: LeadFileRow,
  response: z.string(),
  metered: true,
  leadFeed: true,
  errors: [400, 403],
  async handle(p, ctx) {
    const rows = await ctx.services.search.leadFile(p.date);
    return {
      file: {
        filename: `new-businesses-${p.date}.csv`,
        contentType: 'text/csv; charset=utf-8',
        body: toCsv(LEAD_FILE_COLUMNS, rows),
      },
    };
  },
});
