// The response envelopes around the search's shapes (src/search/shapes.ts), the error body and the
// account's usage: every key required. Tests check every answer against these; OpenAPI and the MCP
// output schemas are generated from them.
import { z } from 'zod';
import { FACET_VALUES, FacetValue } from '../search/index.js';

const Meta = z.object({
  request_id: z.string(),
  dataset_status: z.enum(['live', 'stale', 'empty']).optional(),
});

const Pagination = z.object({
  limit: z.number().int(),
  offset: z.number().int(),
  total: z.number().int().meta({ description: 'Exact number of matches of the query (not of the page).' }),
  has_more: z.boolean().meta({ description: 'offset + limit < total' }),
  next_cursor: z
    .string()
    .nullable()
    .meta({
      description:
        'The next page of the same query as the cursor parameter: null on the last page. A walk by cursor reads ' +
        'the data as it was at its first page, however long it takes and whatever imports run meanwhile.',
    }),
});

export const ErrorEnvelope = z
  .object({
    error: z.object({
      code: z.string(),
      message: z.string(),
      request_id: z.string(),
      details: z
        .record(z.string(), z.string())
        .optional()
        .meta({ description: 'For 400s: each bad parameter and why.' }),
    }),
  })
  .meta({ id: 'Error' });

export const AccountUsageBody = z
  .object({
    events_count: z.number().int(),
    monthly_quota: z.number().int(),
    percent_used: z.number(),
    reset_date: z.string().meta({ format: 'date-time' }),
    plan: z.string(),
  })
  .meta({ id: 'AccountUsageBody' });

/** `{ data: [hit...], pagination, meta }`, with `facets` where the operation offers them. */
export function listEnvelope<T extends z.ZodType>(hit: T, withFacets = false) {
  const base = z.object({ data: z.array(hit), pagination: Pagination, meta: Meta });
  return withFacets
    ? base.extend({
        facets: z
          .record(z.string(), z.array(FacetValue))
          .optional()
          .meta({ description: `Only when facets were asked for: per facet, up to ${FACET_VALUES} values by count.` }),
      })
    : base;
}

/** `{ data: object, meta }`. */
export const singleEnvelope = <T extends z.ZodType>(object: T) => z.object({ data: object, meta: Meta });
