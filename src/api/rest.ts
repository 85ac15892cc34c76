// REST: every operation of the table (GET, or its own method) under /v1 and the same-origin /api/v1, through the
// pipeline. Routes stay thin: read the request, invoke, write the outcome.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ZodObject } from 'zod';
import { KEYLESS_PER_MINUTE, addressWindow, rateLimitHeaders, type RateLimiter } from '../ratelimit/index.js';
import { recordCall } from './call-record.js';
import { ApiError } from './errors.js';
import type { Operation, ListResult } from './operation.js';
import { credentialHeaders } from './credentials.js';
import { csvHeaders, toCsv, wantsCsv } from './csv.js';
import { notKept, type Answer, type Delivery } from './delivery.js';
import { IDEMPOTENCY_HEADER } from './idempotency.js';
import type { Outcome } from './outcome.js';
import type { MemberAuth, Pipeline } from './pipeline.js';
import { perMinuteRefusal } from './refusals.js';

const API_PREFIXES = ['/v1', '/api/v1'] as const;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Fastify's form of an OpenAPI path: `{id}` becomes `:id`. */
export const fastifyPath = (path: string): string => path.replace(/\{(\w+)\}/g, ':$1');

/** Columns of a list operation's hits, in the schema's order. */
function hitColumns(op: Operation): string[] {
  return op.result instanceof ZodObject ? Object.keys(op.result.shape) : [];
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** Writes a pipeline outcome that costs nothing as the HTTP response. */
export function sendOutcome(reply: FastifyReply, outcome: Outcome): FastifyReply {
  reply.code(outcome.status).headers(outcome.headers);
  if (outcome.status === 401) reply.header('www-authenticate', 'Bearer');
  return reply.send(outcome.body);
}

/** A pipeline outcome as the bytes to send: JSON, a CSV page, a file, or an answer given before (a replay). */
function render(outcome: Outcome, columns: readonly string[], csv: boolean): Answer {
  const headers = { ...outcome.headers };
  if (outcome.status === 401) headers['www-authenticate'] = 'Bearer';
  if (outcome.replay) return { status: outcome.status, headers, type: outcome.replay.type, body: outcome.replay.body };
  const result = outcome.status === 200 ? outcome.result : null;
  if (result && 'file' in result) {
    const { 'content-type': type = result.file.contentType, ...rest } = headers;
    return { status: 200, headers: rest, type, body: result.file.body };
  }
  if (csv && result) {
    const list = result as ListResult;
    const { 'content-type': type = 'text/csv', ...rest } = { ...headers, ...csvHeaders(list) };
    return { status: 200, headers: rest, type, body: toCsv(columns, list.data as Array<Record<string, unknown>>) };
  }
  return { status: outcome.status, headers, type: JSON_TYPE, body: JSON.stringify(outcome.body) };
}

/**
 * `member` reads a member signed in to the web app from a request of the same-origin proxy (/api/v1
 * only, when it presents no key): docs/contract.md, "Authentication".
 */
export function registerRest(
  app: FastifyInstance,
  operations: readonly Operation[],
  pipeline: Pipeline,
  delivery: Delivery,
  member: MemberAuth = async () => null,
): void {
  for (const op of operations) {
    // An event stream has its own route (src/api/change-stream.ts): it is written as it goes, not answered once.
    if (op.kind === 'stream') continue;
    const columns = hitColumns(op);
    const method = op.method ?? 'get';
    const handler = async (req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
      // `api_key` in the query never authenticates and is not an error either: it is dropped unread.
      const { api_key: _ignored, format, ...query } = req.query as Record<string, unknown>;
      const csv = op.kind === 'list' && wantsCsv(format, req.headers.accept);
      // A post's parameters come in its JSON body (an unreadable body is refused by Fastify first).
      const body = method === 'post' && isObject(req.body) ? req.body : {};
      const args: Record<string, unknown> = { ...query, ...body, ...(req.params as Record<string, unknown>) };
      if (format !== undefined && (op.kind !== 'list' || (format !== 'csv' && format !== 'json'))) args.format = format;
      const outcome = await pipeline.invoke(op, {
        surface: 'rest',
        headers: credentialHeaders(req),
        args,
        csv,
        requestId: req.id,
        clientIp: req.ip,
        member: op.keyless ? null : await member(req),
        idempotencyKey: req.headers[IDEMPOTENCY_HEADER],
        keepEarly: (caller, charge) => delivery.begin(req, reply, 'rest', caller, charge),
      });
      recordCall(req, outcome, op.keyless ? 'keyless' : 'rest');
      const answer = render(outcome, columns, csv);
      const copy = outcome.idempotencyKey
        ? { key: outcome.idempotencyKey, status: answer.status, type: answer.type, body: answer.body }
        : null;
      const charges = outcome.charges.map((ledgerId) => ({ ledgerId, idempotency: copy }));
      return delivery.send(req, reply, charges, answer, () =>
        render({ ...outcome, status: 500, body: notKept().body(req.id), replay: null, result: null }, columns, false),
      );
    };
    for (const prefix of API_PREFIXES) {
      app.route({
        method: method.toUpperCase() as 'GET' | 'POST' | 'DELETE',
        url: `${prefix}${fastifyPath(op.path)}`,
        handler,
      });
      if (method === 'get') app.head(`${prefix}${fastifyPath(op.path)}`, headNotAllowed);
    }
  }
}

/**
 * HEAD on an API route is refused (405, `Allow: GET`), neither run nor charged: answering it would
 * cost the whole operation for headers alone (docs/contract.md, "Errors").
 */
async function headNotAllowed(_req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  return reply.code(405).header('allow', 'GET').send();
}

/** The error envelope for failures outside any operation (unknown routes, unreadable requests). */
export function errorReply(reply: FastifyReply, requestId: string, err: ApiError): FastifyReply {
  return reply.code(err.status).send(err.body(requestId));
}

/** GET /v1/openapi.json (and under /api/v1): keyless, limited per client address like the other keyless routes. */
export function registerOpenApi(app: FastifyInstance, document: object, limiter: RateLimiter): void {
  const body = JSON.stringify(document);
  for (const prefix of API_PREFIXES) {
    app.head(`${prefix}/openapi.json`, headNotAllowed);
    app.get(`${prefix}/openapi.json`, async (req, reply) => {
      const rate = await limiter.hit(addressWindow(req.ip, 'openapi'), KEYLESS_PER_MINUTE);
      reply.headers(rateLimitHeaders(rate));
      if (!rate.allowed) {
        reply.header('retry-after', String(rate.resetSeconds));
        return errorReply(reply, req.id, perMinuteRefusal(rate));
      }
      return reply.type('application/json; charset=utf-8').send(body);
    });
  }
}
