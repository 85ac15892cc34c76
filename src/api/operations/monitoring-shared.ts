// What the monitoring operations share (docs/webhooks.md): the services they call, the refusals of the
// monitoring store as the error envelope, and the shapes they answer with.
import { z } from 'zod';
import type { Actor } from '../../accounts/audit.js';
import type { PlanSlug } from '../../accounts/catalog.js';
import { Refusal } from '../../monitoring/store.js';
import { ApiError, badRequest } from '../errors.js';
import { singleEnvelope } from '../schemas.js';
import type { HandlerContext } from '../operation.js';

/** Runs a store call, turning its refusals into the API's errors. */
export async function refusing<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (!(err instanceof Refusal)) throw err;
    if (err.kind === 'bad_request') throw badRequest({ [err.field]: err.message });
    throw new ApiError(err.kind, err.message);
  }
}

/** The calling workspace and its plan (monitoring routes are never keyless). */
export const who = (ctx: HandlerContext): { workspace: string; plan: PlanSlug } => ({
  workspace: ctx.caller!.workspaceId,
  plan: ctx.caller!.plan,
});

/** Who makes a change, for the audit log: the key, or the member calling through the same-origin proxy. */
export const actor = (ctx: HandlerContext): Actor =>
  ctx.caller!.keyId
    ? { kind: 'key', id: ctx.caller!.keyId, ip: ctx.clientIp }
    : { kind: 'user', id: ctx.caller!.userId!, ip: ctx.clientIp };

export const monitoringId = (prefix: string, description: string) =>
  z
    .string()
    .regex(new RegExp(`^${prefix}_[0-9a-f]{1,40}$`), { error: `must be an id starting ${prefix}_` })
    .meta({ description });

const Delivery = z.object({ endpoint_id: z.string(), status: z.string(), attempts: z.number().int() });

export const MonitoringEvent = z
  .object({
    id: z.string().meta({ description: 'Stable: every retry and replay carries it; deduplicate on it.' }),
    sequence: z
      .number()
      .int()
      .meta({
        description:
          "The event's number in the workspace, 1, 2, 3... in the order written: sort by it, resume after it " +
          '(`after_sequence`). Also in the payload.',
      }),
    type: z.string(),
    created_at: z.string(),
    payload: z.unknown().meta({ description: 'The body each endpoint receives (docs/webhooks.md, "Events").' }),
    deliveries: z.array(Delivery),
  })
  .meta({ id: 'MonitoringEvent' });

/** What the operations on one event by its id share: the id, the event answered, 404 for another workspace's. */
export const ON_ONE_EVENT = {
  params: z.strictObject({ id: monitoringId('evt', 'The event id.') }),
  kind: 'single',
  result: MonitoringEvent,
  response: singleEnvelope(MonitoringEvent),
  metered: false,
  errors: [404],
} as const;
