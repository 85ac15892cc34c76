// Keyless routes (docs/contract.md, "Addresses"): a sample, a public name search and the dataset's status. Limited
// per client address, never metered, and not MCP tools.
import { z } from 'zod';
import { isoDay } from '../../clock.js';
import { KEYLESS_PER_MINUTE, PUBLIC_SEARCH_PER_MINUTE } from '../../ratelimit/index.js';
import { defineOperation, type Operation } from '../operation.js';
import { limit, text } from '../params.js';
import { EntityHit } from '../../search/index.js';
import { listEnvelope, singleEnvelope } from '../schemas.js';
import { listResult } from './list.js';

const sample = defineOperation({
  name: 'getSample',
  tag: 'Keyless',
  tool: null,
  path: '/sample',
  title: 'Sample entities',
  description:
    'The most recently filed entities, as entity search hits, to see the data without a key ' +
    '(5 by default, 25 at most).',
  params: z.strictObject({ limit: limit(5, 25) }),
  kind: 'list',
  result: EntityHit,
  response: listEnvelope(EntityHit),
  metered: false,
  keyless: { perMinute: KEYLESS_PER_MINUTE },
  errors: [400],
  async handle(p, ctx) {
    const page = await ctx.services.search.entities({
      sort: 'date_newest',
      filed_before: isoDay(ctx.now),
      limit: p.limit,
      offset: 0,
    });
    return listResult(page, { limit: p.limit, offset: 0 });
  },
});

const PUBLIC_SEARCH_LIMIT = 10;

const publicSearch = defineOperation({
  name: 'publicSearch',
  tag: 'Keyless',
  tool: null,
  path: '/public/search',
  title: 'Public name search',
  description:
    'Entity name search without a key: the top 10 hits, no filters. For more, use /v1/entities/search with a key.',
  params: z.strictObject({ name: text(1, 200, 'Entity name, fuzzy.') }),
  kind: 'list',
  result: EntityHit,
  response: listEnvelope(EntityHit),
  metered: false,
  keyless: { perMinute: PUBLIC_SEARCH_PER_MINUTE },
  errors: [400],
  async handle(p, ctx) {
    const page = await ctx.services.search.entities({ name: p.name, limit: PUBLIC_SEARCH_LIMIT, offset: 0 });
    return listResult(page, { limit: PUBLIC_SEARCH_LIMIT, offset: 0 });
  },
});

const count = z.number().int().nullable();

const DatasetStatusBody = z
  .object({
    dataset_status: z.enum(['live', 'stale', 'empty']).meta({
      description:
        'live when the last successful refresh is under 36 hours old, stale after that, empty before any data.',
    }),
    stale_since: z.string().nullable().meta({
      description: 'When the dataset turned stale (36 hours after its last successful refresh); null while it is live.',
    }),
    last_refresh_at: z
      .string()
      .nullable()
      .meta({
        description:
          "The last successful refresh: a run that reached the registry's server and applied everything new on it " +
          '(possibly nothing), or an import, whichever is later.',
      }),
    files_applied: z.array(z.object({ file: z.string(), kind: z.string(), file_date: z.string().nullable() })).meta({
      description:
        'The registry files applied since the successful refresh before the last one, oldest first ' +
        '(empty when the server had nothing new).',
    }),
    last_import_at: z.string().nullable().meta({ description: 'When a registry file was last applied.' }),
    snapshot_date: z
      .string()
      .nullable()
      .meta({ description: 'Date of the quarterly snapshot the dataset is built on.' }),
    newest_file_date: z.string().nullable().meta({ description: 'Date of the newest registry file applied.' }),
    newest_filing_date: z
      .string()
      .nullable()
      .meta({ description: 'The newest filing (formation or event) date in the dataset, up to the newest file date.' }),
    counts: z
      .object({ entities: count, officers: count, events: count, agents: count })
      .meta({ description: 'Rows of the dataset, as counted after the last import.' }),
    dataset_version: z.number().int(),
  })
  .meta({ id: 'DatasetStatus' });

const status = defineOperation({
  name: 'getStatus',
  tag: 'Keyless',
  tool: null,
  path: '/status',
  title: 'Dataset status',
  description:
    'Whether the dataset is live (refreshed within 36 hours) or since when it is stale, ' +
    'what the last refresh applied, the counts and the newest dates.',
  params: z.strictObject({}),
  kind: 'single',
  result: DatasetStatusBody,
  response: singleEnvelope(DatasetStatusBody),
  metered: false,
  keyless: { perMinute: KEYLESS_PER_MINUTE },
  errors: [],
  handle: async (_p, ctx) => ({ data: await ctx.services.dataset.report() }),
});

export const KEYLESS_OPERATIONS: readonly Operation[] = [
  sample,
  publicSearch,
  status,
] as unknown as readonly Operation[];
