// Watches (docs/webhooks.md): entities by document number and saved entity searches, and the workspace's
// recent events. The watch routes are free; the events listing is also an MCP tool and costs a credit
// like every tool.
import { z } from 'zod';
import { EVENT_TYPES } from '../../monitoring/events.js';
import {
  addSavedSearch,
  addWatch,
  deleteSavedSearch,
  deleteWatch,
  listSavedSearches,
  listWatches,
} from '../../monitoring/store.js';
import { getEvent, listEvents } from '../../monitoring/event-log.js';
import { defineOperation, type Operation } from '../operation.js';
import { documentNumber, multi, pagination, text } from '../params.js';
import { listEnvelope, singleEnvelope } from '../schemas.js';
import { entitySearchParams } from './entities.js';
import { paged, USE_NOTE, wholeList } from './list.js';
import { MonitoringEvent, monitoringId, ON_ONE_EVENT, refusing, who } from './monitoring-shared.js';

const Watch = z
  .object({ document_number: z.string(), name: z.string().nullable(), created_at: z.string() })
  .meta({ id: 'Watch' });

/** A saved search holds the entity search's filters; its page, order and facets belong to a listing. */
const SearchFilters = entitySearchParams.omit({ sort: true, limit: true, offset: true, facets: true });

const SavedSearchBody = z
  .object({ id: z.string(), name: z.string(), params: z.record(z.string(), z.unknown()) })
  .meta({ id: 'SavedSearch' });

const Removed = z.object({ removed: z.literal(true) });

export const listEntityWatches = defineOperation({
  name: 'listEntityWatches',
  tag: 'Monitoring',
  tool: null,
  path: '/watches/entities',
  title: 'List watched entities',
  description: 'The entities the workspace watches, by document number. Free of charge.',
  params: z.strictObject({ ...pagination(100, 1000) }),
  kind: 'list',
  result: Watch,
  response: listEnvelope(Watch),
  metered: false,
  errors: [],
  async handle(p, ctx) {
    return paged(ctx, this.name, p, async (page) => {
      const { rows, total } = await listWatches(ctx.services.monitoring.pool, who(ctx).workspace, page);
      return { hits: rows, total };
    });
  },
});

export const watchEntity = defineOperation({
  name: 'watchEntity',
  tag: 'Monitoring',
  tool: null,
  method: 'post',
  path: '/watches/entities',
  title: 'Watch an entity',
  description:
    'Watches an entity: every import that changes its record or adds a filing to it emits entity.updated. ' +
    "Up to the plan's number of watches. Free of charge.",
  params: z.strictObject({ document_number: documentNumber }),
  kind: 'single',
  result: Watch,
  response: singleEnvelope(Watch),
  metered: false,
  errors: [403, 404],
  async handle(p, ctx) {
    const { workspace, plan } = who(ctx);
    return { data: await refusing(() => addWatch(ctx.services.monitoring.pool, workspace, plan, p.document_number)) };
  },
});

export const unwatchEntity = defineOperation({
  name: 'unwatchEntity',
  tag: 'Monitoring',
  tool: null,
  method: 'delete',
  path: '/watches/entities/{document_number}',
  title: 'Stop watching an entity',
  description: 'Free of charge.',
  params: z.strictObject({ document_number: documentNumber }),
  kind: 'single',
  result: Removed,
  response: singleEnvelope(Removed),
  metered: false,
  errors: [404],
  async handle(p, ctx) {
    await refusing(() => deleteWatch(ctx.services.monitoring.pool, who(ctx).workspace, p.document_number));
    return { data: { removed: true as const } };
  },
});

const listSavedSearchWatches = defineOperation({
  name: 'listSavedSearches',
  tag: 'Monitoring',
  tool: null,
  path: '/watches/searches',
  title: 'List saved searches',
  description: "The workspace's saved entity searches. Free of charge.",
  params: z.strictObject({}),
  kind: 'list',
  result: SavedSearchBody,
  response: listEnvelope(SavedSearchBody),
  metered: false,
  errors: [],
  async handle(_p, ctx) {
    const rows = await listSavedSearches(ctx.services.monitoring.pool, who(ctx).workspace);
    return wholeList(rows.map((r) => ({ id: r.id, name: r.name, params: r.params })));
  },
});

export const saveSearch = defineOperation({
  name: 'saveSearch',
  tag: 'Monitoring',
  tool: null,
  method: 'post',
  path: '/watches/searches',
  title: 'Save an entity search',
  description:
    'Saves entity-search filters (those of /entities/search, without page, order or facets): every import ' +
    'emits saved_search.match for each entity that newly matches them (and entity.created when it is new). ' +
    "Up to the plan's number of saved searches. Free of charge.",
  params: z.strictObject({
    name: text(1, 120, 'A name for the search, sent with its events.'),
    search: SearchFilters.meta({ description: 'The entity-search filters, as /entities/search takes them.' }),
  }),
  kind: 'single',
  result: SavedSearchBody,
  response: singleEnvelope(SavedSearchBody),
  metered: false,
  errors: [403],
  async handle(p, ctx) {
    const { workspace, plan } = who(ctx);
    const saved = await refusing(() => addSavedSearch(ctx.services.monitoring.pool, workspace, plan, p.name, p.search));
    return { data: { id: saved.id, name: saved.name, params: saved.params } };
  },
});

export const deleteSavedSearchWatch = defineOperation({
  name: 'deleteSavedSearch',
  tag: 'Monitoring',
  tool: null,
  method: 'delete',
  path: '/watches/searches/{id}',
  title: 'Delete a saved search',
  description: 'Free of charge.',
  params: z.strictObject({ id: monitoringId('ss', 'The saved search id.') }),
  kind: 'single',
  result: Removed,
  response: singleEnvelope(Removed),
  metered: false,
  errors: [404],
  async handle(p, ctx) {
    await refusing(() => deleteSavedSearch(ctx.services.monitoring.pool, who(ctx).workspace, p.id));
    return { data: { removed: true as const } };
  },
});

export const listWatchEvents = defineOperation({
  name: 'listWatchEvents',
  tag: 'Monitoring',
  tool: 'list_watch_events',
  path: '/watches/events',
  title: 'Recent events of the watchlist',
  description:
    "What changed on the workspace's watched entities and saved searches: the events of the imports, newest " +
    'first, each with the changed fields (old and new values) or the matching search, and its deliveries. ' +
    `For questions like "what changed on my watchlist this week". ${USE_NOTE}`,
  params: z.strictObject({
    since: z.iso
      .datetime({ offset: true, error: 'must be an ISO 8601 instant' })
      .optional()
      .meta({ description: 'Only events from this instant on (e.g. 2026-10-01T00:00:00Z).' }),
    type: multi(
      z.string().pipe(z.enum(EVENT_TYPES, { error: `must be one of ${EVENT_TYPES.join(', ')}` })),
      `Event types: ${EVENT_TYPES.join(', ')}.`,
      EVENT_TYPES,
    ).optional(),
    after_sequence: z.coerce
      .number({ error: 'must be an integer' })
      .int({ error: 'must be an integer' })
      .min(0, { error: 'must not be negative' })
      .optional()
      .meta({
        description:
          'Only the events numbered after this one, oldest first: pass the last `sequence` you handled to resume ' +
          '(docs/webhooks.md, "Event order"). Without it, newest first.',
      }),
    ...pagination(25, 200),
  }),
  kind: 'list',
  result: MonitoringEvent,
  response: listEnvelope(MonitoringEvent),
  metered: true,
  errors: [],
  async handle(p, ctx) {
    return paged(ctx, this.name, p, async (page) => {
      const { rows, total } = await listEvents(ctx.services.monitoring.pool, who(ctx).workspace, {
        ...(p.since ? { since: p.since } : {}),
        ...(p.type ? { types: p.type } : {}),
        ...(p.after_sequence === undefined ? {} : { afterSequence: p.after_sequence }),
        ...page,
      });
      return { hits: rows, total };
    });
  },
});

const getWatchEvent = defineOperation({
  name: 'getWatchEvent',
  tool: null,
  tag: 'Monitoring',
  path: '/watches/events/{id}',
  title: 'One event of the watchlist',
  description:
    'One event by its id (the `webhook-id` of its deliveries), with its sequence number, the body its endpoints ' +
    'receive and its deliveries: a receiver can check a delivery against it. Free of charge.',
  ...ON_ONE_EVENT,
  async handle(p, ctx) {
    return { data: await refusing(() => getEvent(ctx.services.monitoring.pool, who(ctx).workspace, p.id)) };
  },
});

export const WATCH_OPERATIONS = [
  listEntityWatches,
  watchEntity,
  unwatchEntity,
  listSavedSearchWatches,
  saveSearch,
  deleteSavedSearchWatch,
  listWatchEvents,
  getWatchEvent,
] as unknown as readonly Operation[];
