// Webhook endpoints (docs/webhooks.md): register (the secret shown once), list, pause, resume, rotate the
// secret, delete, send a test event, read the delivery log, replay an event. Authenticated by key, never
// metered, not MCP tools.
import { z } from 'zod';
import { EVENT_TYPES } from '../../monitoring/events.js';
import { changeEndpoint, createEndpoint, deleteEndpoint, listEndpoints } from '../../monitoring/store.js';
import { MAX_REPLAY_DELIVERIES, replayEvent, replayEvents, sendTestEvent } from '../../monitoring/event-log.js';
import { listAttempts } from '../../monitoring/log.js';
import { defineOperation, type Operation } from '../operation.js';
import { pagination } from '../params.js';
import { listEnvelope, singleEnvelope } from '../schemas.js';
import { paged, wholeList } from './list.js';
import { actor, MonitoringEvent, monitoringId, ON_ONE_EVENT, refusing, who } from './monitoring-shared.js';

const Endpoint = z
  .object({
    id: z.string(),
    url: z.string(),
    event_types: z.array(z.string()),
    paused: z.boolean(),
    paused_reason: z
      .string()
      .nullable()
      .meta({ description: "'paused by hand', 'failing' (72 hours of failures) or 'gone' (it answered 410 Gone)." }),
    created_at: z.string(),
    secret: z
      .string()
      .optional()
      .meta({ description: 'The signing secret: only in the answer of a creation or a rotation. Keep it.' }),
  })
  .meta({ id: 'WebhookEndpoint' });

const endpointId = monitoringId('we', 'The webhook endpoint id.');
const single = singleEnvelope(Endpoint);

const listWebhooks = defineOperation({
  name: 'listWebhooks',
  tag: 'Webhooks',
  tool: null,
  path: '/webhooks',
  title: 'List webhook endpoints',
  description: "The workspace's webhook endpoints (secrets are never listed). Free of charge.",
  params: z.strictObject({}),
  kind: 'list',
  result: Endpoint,
  response: listEnvelope(Endpoint),
  metered: false,
  errors: [],
  async handle(_p, ctx) {
    return wholeList(await listEndpoints(ctx.services.monitoring.pool, who(ctx).workspace));
  },
});

export const createWebhook = defineOperation({
  name: 'createWebhook',
  tag: 'Webhooks',
  tool: null,
  method: 'post',
  path: '/webhooks',
  title: 'Register a webhook endpoint',
  description:
    'Registers an https:// URL on a public address to receive the chosen event types as signed JSON POSTs. ' +
    'The answer holds the signing secret, shown this once. Plans with monitoring (Pro beta, Growth, Lead Feed, ' +
    "Enterprise), up to the plan's number of endpoints. Free of charge.",
  params: z.strictObject({
    url: z.string().min(1).max(2000).meta({ description: 'https:// URL on a public address.' }),
    event_types: z
      .array(z.enum(EVENT_TYPES, { error: `must be one of ${EVENT_TYPES.join(', ')}` }))
      .min(1)
      .max(EVENT_TYPES.length)
      .default([...EVENT_TYPES])
      .meta({ description: `Event types to receive (default all): ${EVENT_TYPES.join(', ')}.` }),
  }),
  kind: 'single',
  result: Endpoint,
  response: single,
  metered: false,
  errors: [403],
  async handle(p, ctx) {
    const { workspace, plan } = who(ctx);
    const m = ctx.services.monitoring;
    const types = [...new Set(p.event_types)];
    return {
      data: await refusing(() => createEndpoint(m.pool, workspace, plan, p.url, types, m.allowPrivate, actor(ctx))),
    };
  },
});

const endpointChange = (change: 'pause' | 'resume' | 'rotate', name: string, suffix: string, text: string) =>
  defineOperation({
    name,
    tag: 'Webhooks',
    tool: null,
    method: 'post',
    path: `/webhooks/{id}/${suffix}`,
    title: text,
    description: `${text}. Free of charge.`,
    params: z.strictObject({ id: endpointId }),
    kind: 'single',
    result: Endpoint,
    response: single,
    metered: false,
    errors: [404],
    async handle(p, ctx) {
      return {
        data: await refusing(() =>
          changeEndpoint(ctx.services.monitoring.pool, who(ctx).workspace, p.id, change, actor(ctx)),
        ),
      };
    },
  });

export const pauseWebhook = endpointChange('pause', 'pauseWebhook', 'pause', 'Pause a webhook endpoint (events wait)');
export const resumeWebhook = endpointChange(
  'resume',
  'resumeWebhook',
  'resume',
  'Resume a webhook endpoint (what waits is sent at once)',
);
export const rotateWebhookSecret = endpointChange(
  'rotate',
  'rotateWebhookSecret',
  'rotate-secret',
  'Rotate the signing secret of a webhook endpoint (the new one shown once; the old one signs beside it for a day)',
);

const Deleted = z.object({ id: z.string(), deleted: z.literal(true) }).meta({ id: 'Deleted' });

export const deleteWebhook = defineOperation({
  name: 'deleteWebhook',
  tag: 'Webhooks',
  tool: null,
  method: 'delete',
  path: '/webhooks/{id}',
  title: 'Delete a webhook endpoint',
  description: 'Deletes the endpoint and its pending deliveries. Free of charge.',
  params: z.strictObject({ id: endpointId }),
  kind: 'single',
  result: Deleted,
  response: singleEnvelope(Deleted),
  metered: false,
  errors: [404],
  async handle(p, ctx) {
    await refusing(() => deleteEndpoint(ctx.services.monitoring.pool, who(ctx).workspace, p.id, actor(ctx)));
    return { data: { id: p.id, deleted: true as const } };
  },
});

export const testWebhook = defineOperation({
  name: 'testWebhook',
  tag: 'Webhooks',
  tool: null,
  method: 'post',
  path: '/webhooks/{id}/test',
  title: 'Send a test event',
  description: 'Queues a `ping` event to this endpoint, signed like every other. Free of charge.',
  params: z.strictObject({ id: endpointId }),
  kind: 'single',
  result: MonitoringEvent,
  response: singleEnvelope(MonitoringEvent),
  metered: false,
  errors: [404],
  async handle(p, ctx) {
    return { data: await refusing(() => sendTestEvent(ctx.services.monitoring.pool, who(ctx).workspace, p.id)) };
  },
});

export const replayWebhookEvent = defineOperation({
  name: 'replayWebhookEvent',
  tag: 'Webhooks',
  tool: null,
  method: 'post',
  path: '/webhooks/events/{id}/replay',
  title: 'Replay an event',
  description:
    'Sends an event again, under its same id, to every endpoint subscribed to its type (also after it ' +
    'failed or was delivered). Free of charge.',
  ...ON_ONE_EVENT,
  async handle(p, ctx) {
    return { data: await refusing(() => replayEvent(ctx.services.monitoring.pool, who(ctx).workspace, p.id)) };
  },
});

const instant = (description: string) =>
  z.iso.datetime({ offset: true, error: 'must be an ISO 8601 instant' }).meta({ description });

const Replayed = z
  .object({
    events: z.number().int().meta({ description: 'Events replayed.' }),
    deliveries: z.number().int().meta({ description: 'Deliveries restarted (one per event and endpoint).' }),
  })
  .meta({ id: 'ReplayedRange' });

export const replayWebhookEvents = defineOperation({
  name: 'replayWebhookEvents',
  tool: null,
  tag: 'Webhooks',
  method: 'post',
  path: '/webhooks/events/replay',
  title: 'Replay the events of a time range',
  description:
    'Sends again, each under its same id, the events written from `since` up to `until` (to every subscribed ' +
    'endpoint, or to `endpoint_id` alone), or with `status: "failed"` only their deliveries that failed. Each ' +
    `delivery's attempts start again from the first. At most ${MAX_REPLAY_DELIVERIES} deliveries at once. ` +
    'Free of charge.',
  params: z
    .strictObject({
      since: instant('The first instant of the range (inclusive), e.g. 2026-10-01T00:00:00Z.'),
      until: instant('The end of the range (exclusive); now by default.').optional(),
      status: z
        .enum(['all', 'failed'], { error: 'must be all or failed' })
        .default('all')
        .meta({ description: '`failed`: only the deliveries that failed; `all` (default): every delivery.' }),
      endpoint_id: monitoringId('we', 'Only the deliveries to this endpoint.').optional(),
    })
    .refine((p) => p.until === undefined || Date.parse(p.since) < Date.parse(p.until), {
      path: ['until'],
      error: 'must be after since',
    }),
  kind: 'single',
  result: Replayed,
  response: singleEnvelope(Replayed),
  metered: false,
  errors: [404],
  async handle(p, ctx) {
    const range = {
      since: p.since,
      until: p.until ?? new Date().toISOString(),
      failedOnly: p.status === 'failed',
      ...(p.endpoint_id ? { endpoint: p.endpoint_id } : {}),
    };
    return { data: await refusing(() => replayEvents(ctx.services.monitoring.pool, who(ctx).workspace, range)) };
  },
});

const DeliveryAttempt = z
  .object({
    event_id: z.string(),
    event_type: z.string(),
    attempt: z.number().int().meta({ description: 'Which attempt of this event to this endpoint (1 = first).' }),
    attempted_at: z.string(),
    status_code: z.number().int().nullable().meta({ description: "The receiver's HTTP status; null if none came." }),
    error: z
      .string()
      .nullable()
      .meta({ description: 'Why the attempt failed (timeout, refused address, HTTP 500...).' }),
    latency_ms: z.number().int(),
    response_excerpt: z.string().nullable().meta({ description: "The response body's first kilobyte." }),
    delivery_status: z.string().meta({ description: "The event's delivery now: pending, delivered or failed." }),
  })
  .meta({ id: 'WebhookDeliveryAttempt' });

export const listWebhookDeliveries = defineOperation({
  name: 'listWebhookDeliveries',
  tag: 'Webhooks',
  tool: null,
  path: '/webhooks/{id}/deliveries',
  title: "An endpoint's delivery log",
  description:
    'Every attempt to deliver an event to this endpoint in the last 30 days, newest first: status code or ' +
    'error, latency and the start of the response. Free of charge.',
  params: z.strictObject({ id: endpointId, ...pagination(50, 200) }),
  kind: 'list',
  result: DeliveryAttempt,
  response: listEnvelope(DeliveryAttempt),
  metered: false,
  errors: [404],
  async handle(p, ctx) {
    return paged(ctx, this.name, p, async (page) => {
      const log = await refusing(() => listAttempts(ctx.services.monitoring.pool, who(ctx).workspace, p.id, page));
      return { hits: log.rows, total: log.total };
    });
  },
});

export const WEBHOOK_OPERATIONS = [
  listWebhooks,
  createWebhook,
  deleteWebhook,
  pauseWebhook,
  resumeWebhook,
  rotateWebhookSecret,
  testWebhook,
  listWebhookDeliveries,
  replayWebhookEvent,
  replayWebhookEvents,
] as unknown as readonly Operation[];
