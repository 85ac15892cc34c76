import { z } from 'zod';
import { addDays, isoDay } from '../../clock.js';
import { defineOperation } from '../operation.js';
import { isoDate, pagination } from '../params.js';
import { FilingHit } from '../../search/index.js';
import { listEnvelope } from '../schemas.js';
import { paged, USE_NOTE } from './list.js';

export const listDailyFilings = defineOperation({
  name: 'listDailyFilings',
  tag: 'Filings',
  tool: 'list_daily_filings',
  path: '/filings/daily',
  title: "List a day's filings",
  description:
    'Filings of one UTC calendar day: formations (filing_type FORMATION) and events (AMENDMENT, NAME_CHANGE, ' +
    'REINSTATEMENT, MERGER, CONVERSION, DISSOLUTION, REVOCATION, WITHDRAWAL, AGENT_CHANGE, ANNUAL_REPORT, OTHER). ' +
    'Without a date: the newest day with filings. ' +
    `Newest first, then by document number. ${USE_NOTE}`,
  params: z.strictObject({
    date: isoDate('The day (UTC), YYYY-MM-DD. Default: the newest day with filings.').optional(),
    ...pagination(50, 500),
  }),
  kind: 'list',
  result: FilingHit,
  response: listEnvelope(FilingHit),
  metered: true,
  errors: [400, 410],
  async handle(p, ctx) {
    // A walk keeps the day of its first page, though a newer one has filings by now.
    return paged(ctx, this.name, p, async (page, walk) => {
      const date = walk?.scope?.[0] ?? p.date ?? (await ctx.services.search.latestFilingDate(isoDay(ctx.now)));
      if (!date) return { hits: [], total: 0 };
      return { ...(await ctx.services.search.filingsBetween(date, date, page, walk)), scope: [date] };
    });
  },
});

export const listRecentFilings = defineOperation({
  name: 'listRecentFilings',
  tag: 'Filings',
  tool: 'list_recent_filings',
  path: '/filings/recent',
  title: 'List recent filings',
  description:
    'Formations and events filed in the last N days (1 to 90, default 7), counted back from today (UTC). ' +
    `Newest first, then by document number. ${USE_NOTE}`,
  params: z.strictObject({
    days: z.coerce
      .number({ error: 'must be an integer' })
      .int({ error: 'must be an integer' })
      .min(1, { error: 'must be at least 1' })
      .max(90, { error: 'must be at most 90' })
      .default(7)
      .meta({ description: 'Days back from today, 1 to 90.' }),
    ...pagination(25, 200),
  }),
  kind: 'list',
  result: FilingHit,
  response: listEnvelope(FilingHit),
  metered: true,
  errors: [400, 410],
  async handle(p, ctx) {
    // A walk keeps the days of its first page, whatever the date when it reads on.
    return paged(ctx, this.name, p, async (page, walk) => {
      const [from, to] = walk?.scope ?? [addDays(isoDay(ctx.now), -p.days), isoDay(ctx.now)];
      return { ...(await ctx.services.search.filingsBetween(from!, to!, page, walk)), scope: [from!, to!] };
    });
  },
});
