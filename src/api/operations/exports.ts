// Exports (docs/exports.md): a list operation's whole result set as a file, written in the background; created,
// listed, read (with a download link once completed) and cancelled here. Free to create: an export is charged per
// 1,000 rows as it is written.
import stableStringify from 'safe-stable-stringify';
import { z } from 'zod';
import { EXPORT_ROWS_PER_CREDIT, PLANS } from '../../accounts/catalog.js';
import {
  cancelExport,
  createExport,
  EXPORT_STATUSES,
  getExport,
  listExports,
  type Export,
} from '../../exports/jobs.js';
import { FORMATS } from '../../exports/formats.js';
import { ApiError, badRequest, type Details } from '../errors.js';
import { LINK_HOURS } from '../signed-links.js';
import { idempotencyMismatch } from '../idempotency.js';
import { defineOperation, type HandlerContext, type Operation } from '../operation.js';
import { pagination } from '../params.js';
import { listEnvelope, singleEnvelope } from '../schemas.js';
import { searchEntities } from './entities.js';
import { listDailyFilings, listRecentFilings } from './filings.js';
import { listNewBusinessLeads } from './leads.js';
import { paged } from './list.js';
import { searchAddresses, searchAgents, searchOfficers } from './people.js';

/** The lists an export may hold: every registry list operation. */
export const EXPORTABLE: readonly Operation[] = [
  searchEntities,
  searchOfficers,
  searchAgents,
  searchAddresses,
  listDailyFilings,
  listRecentFilings,
  listNewBusinessLeads,
] as unknown as readonly Operation[];

const EXPORTABLE_NAMES = EXPORTABLE.map((o) => o.name) as [string, ...string[]];

/** The list's own parameters: a page's are the export's to choose. */
const listParams = (op: Operation) => op.params.omit({ limit: true, offset: true, cursor: true });
const PAGE_PARAMS = ['limit', 'offset', 'cursor'];
const PAGE_PARAM = 'not a parameter of an export: it reads every page';

export const ExportBody = z
  .object({
    id: z.string(),
    status: z.enum(EXPORT_STATUSES),
    operation: z.string().meta({ description: 'The list exported (its operationId).' }),
    params: z.record(z.string(), z.unknown()).meta({ description: "The list's parameters, as validated." }),
    format: z.enum(FORMATS),
    total_rows: z
      .number()
      .int()
      .nullable()
      .meta({ description: "The list's exact total, once its first page is read." }),
    done_rows: z.number().int().meta({ description: 'Rows written (and charged) so far.' }),
    credits: z
      .number()
      .int()
      .meta({ description: `Credits taken: one per started ${EXPORT_ROWS_PER_CREDIT} rows.` }),
    bytes: z.number().int(),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    created_at: z.string(),
    started_at: z.string().nullable(),
    finished_at: z.string().nullable(),
    download: z
      .object({ url: z.string(), expires_at: z.string() })
      .nullable()
      .meta({ description: 'Once completed: a link to the file that works without a key until it expires.' }),
  })
  .meta({ id: 'Export' });

const exportId = z
  .string()
  .regex(/^ex_[0-9a-f]{24}$/, { error: 'must be an export id (ex_ and 24 hex digits)' })
  .meta({ description: 'The export id.' });

const workspaceOf = (ctx: HandlerContext): string => ctx.caller!.workspaceId;

/** An export as answered: with a fresh download link once completed. */
const shown = (e: Export, ctx: HandlerContext): z.output<typeof ExportBody> => ({
  ...e,
  download: e.status === 'completed' ? ctx.services.exports.links.link(e.id, ctx.now) : null,
});

const notFound = (id: string): ApiError => new ApiError('not_found', `No export ${id}.`);

const createExportOperation = defineOperation({
  name: 'createExport',
  tag: 'Exports',
  tool: null,
  method: 'post',
  path: '/exports',
  title: 'Create an export',
  description:
    "Writes a list operation's whole result set (any of its filters and sorts) as a file in the background: CSV " +
    'or JSON lines (gzipped), or Parquet. Answers the queued export; read it for progress and, once completed, a ' +
    "download link. The rows are those of a cursor walk begun when the export starts, pinned to that day's data. " +
    `Costs 1 credit per started ${EXPORT_ROWS_PER_CREDIT} rows as they are written; plans with CSV (Pro and above), ` +
    'the lead feed with the lead feed. With an Idempotency-Key, the same key answers the export it created.',
  params: z.strictObject({
    operation: z
      .enum(EXPORTABLE_NAMES, { error: `must be one of ${EXPORTABLE_NAMES.join(', ')}` })
      .meta({ description: 'The list to export, by operationId.' }),
    params: z
      .record(z.string(), z.unknown(), { error: 'must be an object of the list operation’s parameters' })
      .default({})
      .meta({ description: "The list's parameters as its route takes them, without limit, offset and cursor." }),
    format: z.enum(FORMATS, { error: `must be one of ${FORMATS.join(', ')}` }).default('csv'),
  }),
  kind: 'single',
  result: ExportBody,
  response: singleEnvelope(ExportBody),
  metered: false,
  errors: [403, 409],
  async handle(p, ctx) {
    const op = EXPORTABLE.find((o) => o.name === p.operation)!;
    const parsed = listParams(op).safeParse(p.params);
    if (!parsed.success) {
      const details: Details = {};
      for (const issue of parsed.error.issues) {
        if (issue.code !== 'unrecognized_keys') details[`params.${issue.path.join('.')}`] = issue.message;
        else
          for (const k of issue.keys)
            details[`params.${k}`] = PAGE_PARAMS.includes(k) ? PAGE_PARAM : 'unknown parameter';
      }
      throw badRequest(details);
    }
    const plan = PLANS[ctx.caller!.plan];
    if (!plan.csv) throw new ApiError('forbidden', `Exports come with the plans that have CSV (Pro and above).`);
    if (op.leadFeed && !plan.leadFeed)
      throw new ApiError('forbidden', 'The lead feed, and so its export, needs the Lead Feed or Enterprise plan.');
    const request = { operation: op.name, params: parsed.data as Record<string, unknown>, format: p.format };
    const { export: made, created } = await createExport(
      ctx.services.exports.pool,
      {
        workspace: workspaceOf(ctx),
        keyId: ctx.caller!.keyId,
        userId: ctx.caller!.userId,
        ...request,
        idempotencyKey: ctx.idempotencyKey,
      },
      ctx.now,
    );
    // Compared in a stable key order: the stored parameters come back from jsonb in its own order.
    const asked = stableStringify(request);
    const same = stableStringify({ operation: made.operation, params: made.params, format: made.format }) === asked;
    if (!created && !same) throw idempotencyMismatch(ctx.idempotencyKey!);
    return { data: shown(made, ctx) };
  },
});

const listExportsOperation = defineOperation({
  name: 'listExports',
  tag: 'Exports',
  tool: null,
  path: '/exports',
  title: 'List exports',
  description: "The workspace's exports, newest first, with their progress. Free of charge.",
  params: z.strictObject({ ...pagination(25, 100) }),
  kind: 'list',
  result: ExportBody,
  response: listEnvelope(ExportBody),
  metered: false,
  errors: [],
  async handle(p, ctx) {
    return paged(ctx, this.name, p, async (page) => {
      const { exports, total } = await listExports(ctx.services.exports.pool, workspaceOf(ctx), page);
      return { hits: exports.map((e) => shown(e, ctx)), total };
    });
  },
});

/** What reading and cancelling an export share: the id in the path, the export answered, free. */
const ONE_EXPORT = {
  tag: 'Exports',
  tool: null,
  params: z.strictObject({ id: exportId }),
  kind: 'single',
  result: ExportBody,
  response: singleEnvelope(ExportBody),
  metered: false,
  errors: [404],
} as const;

const getExportOperation = defineOperation({
  ...ONE_EXPORT,
  name: 'getExport',
  path: '/exports/{id}',
  title: 'Get an export',
  description:
    `One export: its progress and, once completed, a download link (a new one each time, working for ${LINK_HOURS} ` +
    'hours). ' +
    'Free of charge.',
  async handle(p, ctx) {
    const found = await getExport(ctx.services.exports.pool, workspaceOf(ctx), p.id);
    if (!found) throw notFound(p.id);
    return { data: shown(found, ctx) };
  },
});

const cancelExportOperation = defineOperation({
  ...ONE_EXPORT,
  name: 'cancelExport',
  method: 'post',
  path: '/exports/{id}/cancel',
  title: 'Cancel an export',
  description:
    'Stops a queued or running export at its next chunk: the rows written stay charged; no file is offered. ' +
    'An export that has ended is answered as it is. Free of charge.',
  async handle(p, ctx) {
    const found = await cancelExport(ctx.services.exports.pool, workspaceOf(ctx), p.id, ctx.now);
    if (!found) throw notFound(p.id);
    return { data: shown(found, ctx) };
  },
});

export const EXPORT_OPERATIONS = [
  createExportOperation,
  listExportsOperation,
  getExportOperation,
  cancelExportOperation,
] as const;
