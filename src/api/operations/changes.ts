// The change feed (docs/contract.md, "Change feed"): every change each import made to every entity, as pages from
// any position kept (a list, also an MCP tool) and as a live stream of Server-Sent Events for the plans with it
// (its route: src/api/change-stream.ts).
import { z } from 'zod';
import { PLAN_SLUGS, PLANS, STREAM_EVENTS_PER_CREDIT } from '../../accounts/catalog.js';
import { STREAM_LEASE_MS, takeStreamLease } from '../../accounts/stream-leases.js';
import { CHANGE_RETENTION_DAYS } from '../../registry/feed/purge.js';
import { CHANGE_KINDS, PositionExpired, type ChangeFilters } from '../../registry/feed/read.js';
import { ApiError } from '../errors.js';
import { defineOperation, type HandlerContext } from '../operation.js';
import { county, entityTypeCode, multi, pagination } from '../params.js';
import { listEnvelope } from '../schemas.js';
import { USE_NOTE } from './list.js';

const FieldChange = z.object({
  field: z.string(),
  before: z.unknown().meta({ description: 'The value before the file (null: none).' }),
  after: z.unknown().meta({ description: 'The value after it (null: none).' }),
});

const Change = z
  .object({
    sequence: z
      .number()
      .int()
      .meta({ description: "The change's number: 1, 2, 3... in the order written, without gaps. A position." }),
    kind: z.enum(CHANGE_KINDS),
    document_number: z.string(),
    entity_type: z.string().nullable().meta({ description: "The entity's type after the change (before: removed)." }),
    county: z.string().nullable().meta({ description: "The county of the entity's principal ZIP." }),
    file: z.string().meta({ description: 'The registry file that made it.' }),
    file_date: z.string(),
    dataset_version: z.number().int().meta({ description: 'The dataset version the file made.' }),
    imported_at: z.string(),
    changes: z.array(FieldChange).meta({
      description:
        'created and removed: every field the record has; updated: each field that differs; status_changed: ' +
        'status; filing: the filing (before null when new, after null when a full load dropped it).',
    }),
  })
  .meta({ id: 'Change' });

const FeedPagination = z.object({
  limit: z.number().int(),
  offset: z.number().int().meta({ description: "The walk's changes before this page." }),
  total: z
    .number()
    .int()
    .meta({ description: 'The changes the walk matched from its start up to the newest when it began (first page).' }),
  has_more: z.boolean().meta({ description: 'More changes match after this page now: read next_cursor at once.' }),
  next_cursor: z.string().meta({
    description:
      'Never null: the position after this page. Read it at once while has_more; later for what new imports add.',
  }),
});

const filters = {
  kind: multi(
    z.string().pipe(z.enum(CHANGE_KINDS, { error: `must be one of ${CHANGE_KINDS.join(', ')}` })),
    `Kinds of change: ${CHANGE_KINDS.join(', ')}.`,
    CHANGE_KINDS,
  ).optional(),
  entity_type: multi(entityTypeCode, 'Registry entity type codes, UPPERCASE (FLAL, DOMP...).').optional(),
  county: multi(county, 'Florida counties of the principal ZIP, ignoring case (Miami-Dade, St. Johns).').optional(),
};

const since = z
  .union([z.iso.date(), z.iso.datetime({ offset: true })], {
    error: 'must be a date YYYY-MM-DD or an ISO 8601 instant',
  })
  .optional()
  .meta({
    description: 'Start with the first change imported at or after this instant (a date: 00:00 UTC that day).',
  });

const filtersOf = (p: ChangeFilters): ChangeFilters => ({ kind: p.kind, entity_type: p.entity_type, county: p.county });

const sinceDate = (v: string | undefined): Date | undefined =>
  v === undefined ? undefined : new Date(v.length === 10 ? `${v}T00:00:00Z` : v);

/** A position the purge took changes after answers 410, like a cursor whose data is gone (free). */
async function expiring<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (!(err instanceof PositionExpired)) throw err;
    throw new ApiError(
      'cursor_expired',
      `The changes up to number ${err.purgedThrough}${err.purgedUntil ? ` (imported up to ${err.purgedUntil})` : ''} ` +
        `are no longer kept: the feed keeps ${CHANGE_RETENTION_DAYS} days. Read again what you mirror, then follow ` +
        `the feed from after_sequence=${err.purgedThrough}.`,
    );
  }
}

const { limit, cursor } = pagination(100, 1000);

const listChanges = defineOperation({
  name: 'listChanges',
  tag: 'Changes',
  tool: 'list_changes',
  path: '/changes',
  title: 'List changes',
  description:
    'Every change each registry import made to every entity, oldest first: created, updated (each field before and ' +
    'after), status_changed, removed (a full load), filing (a filing added or corrected). Start after a change ' +
    'number (after_sequence) or at an instant (since), or at the oldest kept (a year); filter by kind, entity type ' +
    `and county; read on with next_cursor, now and after later imports. ${USE_NOTE}`,
  params: z
    .strictObject({
      ...filters,
      after_sequence: z.coerce
        .number({ error: 'must be an integer' })
        .int({ error: 'must be an integer' })
        .min(0, { error: 'must not be negative' })
        .optional()
        .meta({ description: 'Start after this change number (the last one you handled). Not with since.' }),
      since,
      limit,
      cursor,
    })
    .refine((p) => p.after_sequence === undefined || p.since === undefined, {
      path: ['since'],
      message: 'must not be given with after_sequence: the walk starts at one of them',
    }),
  kind: 'list',
  result: Change,
  response: listEnvelope(Change).extend({ pagination: FeedPagination }),
  metered: true,
  errors: [400, 410],
  async handle(p, ctx) {
    const { feed } = ctx.services.changes;
    const kept = filtersOf(p);
    return expiring(async () => {
      // A cursor carries the position after its page, the walk's total and the changes read before it.
      const walk = p.cursor ? ctx.services.cursors.decode(this.name, p, p.cursor) : null;
      const start = walk
        ? Number(walk.after![0])
        : await feed.start({ after: p.after_sequence, since: sinceDate(p.since) });
      const total = walk ? walk.total : await feed.count(start, kept);
      const page = await feed.after(start, kept, p.limit);
      const offset = walk?.pos ?? 0;
      const next = ctx.services.cursors.encode(this.name, p, {
        pos: offset + page.rows.length,
        total,
        version: 0,
        after: [page.scanned],
        scope: null,
      });
      return {
        data: page.rows,
        pagination: { limit: p.limit, offset, total, has_more: page.more, next_cursor: next },
      };
    });
  },
});

/** The plans with the stream, by name, from the catalog. */
const streamPlans = (): string =>
  PLAN_SLUGS.filter((s) => PLANS[s].changeStreams > 0)
    .map((s) => PLANS[s].name)
    .join(' and ');

/** What a stream's route needs of its start (src/api/change-stream.ts). */
export interface StreamStart {
  /** Its lease (the request's id), to renew and give back. */
  readonly lease: string;
  /** The last change number before its first event. */
  readonly position: number;
  readonly filters: ChangeFilters;
}

const workspaceOf = (ctx: HandlerContext): string => ctx.caller!.workspaceId;

export const streamChanges = defineOperation({
  name: 'streamChanges',
  tag: 'Changes',
  tool: null,
  path: '/changes/stream',
  title: 'Stream changes live',
  description:
    'The changes of GET /v1/changes as Server-Sent Events, as each import commits: `id:` the change number, ' +
    '`event: change`, `data:` the Change. Resume with the Last-Event-ID header (or last_event_id), start at an ' +
    'instant (since) or, by default, with the next import; the same filters. A heartbeat comment every 15 s; a ' +
    `connection lasts up to an hour. Costs 1 credit as it opens and 1 for each further ${STREAM_EVENTS_PER_CREDIT} ` +
    `events. ${streamPlans()} plans.`,
  params: z.strictObject({
    ...filters,
    last_event_id: z
      .string({ error: 'must be a single text value' })
      .regex(/^\d{1,18}$/, {
        error: 'must be a change number (an event id of the stream), as Last-Event-ID or last_event_id',
      })
      .transform(Number)
      .optional()
      .meta({
        description:
          'Resume after this change number, for clients that cannot send the Last-Event-ID header (which wins).',
      }),
    since,
  }),
  kind: 'stream',
  result: Change,
  response: Change,
  // Charged by its route once admitted (src/api/change-stream.ts): nothing is reserved before this handler's
  // refusals (the plan, the position, the streams open), which then move no credit.
  metered: false,
  errors: [400, 402, 403, 410],
  async handle(p, ctx) {
    const plan = PLANS[ctx.caller!.plan];
    if (plan.changeStreams === 0)
      throw new ApiError(
        'forbidden',
        `The live change stream comes with the ${streamPlans()} plans; every plan reads the same changes page by ` +
          'page at GET /v1/changes.',
      );
    const { feed, leases } = ctx.services.changes;
    // A reconnection sends Last-Event-ID to the URL it first opened: the position wins over `since`.
    const since = p.last_event_id === undefined ? sinceDate(p.since) : undefined;
    const position = await expiring(() => feed.start({ after: p.last_event_id, since, newest: true }));
    const workspace = workspaceOf(ctx);
    const max = plan.changeStreams;
    if (!(await takeStreamLease(leases, { workspace, id: ctx.requestId, max }, ctx.now)))
      throw new ApiError(
        'rate_limited',
        `This workspace has ${max} change streams open, the most its plan holds at once: close one first (the ` +
          "lease of a stream whose client is gone ends within a minute). Each stream's filters can be wider.",
        { retryAfter: STREAM_LEASE_MS / 1000 },
      );
    const start: StreamStart = { lease: ctx.requestId, position, filters: filtersOf(p) };
    return { stream: start };
  },
});

export const CHANGE_OPERATIONS = [listChanges, streamChanges] as const;
