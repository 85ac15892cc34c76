// GET /v1/changes/stream (docs/contract.md, "Change feed"): the change feed as Server-Sent Events. A connection
// passes the pipeline as every call does (authenticate, surface, rate limit, validate, plan gate, reserve, the
// operation's handler: the plan's stream, its start position, a stream lease), and its credit is kept before the
// first byte, as every charged answer's (src/api/delivery.ts); a client that leaves before that is refunded.
// Once open, the stream is not refunded when its client closes it: it was delivered as it went. The route then
// writes the changes after the position, reads on as imports commit, charges a credit for each further block of
// events (src/api/change-stream-run.ts), and ends after an hour.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Credential } from '../accounts/gate.js';
import { presentedKey } from '../accounts/keys.js';
import { CLIENT_GONE } from '../accounts/settlement.js';
import { dropStreamLease } from '../accounts/stream-leases.js';
import { logRow, recordCall } from './call-record.js';
import { ApiError, internalError } from './errors.js';
import { runStream, takeCredit, type ChangeStreamDeps } from './change-stream-run.js';
import { credentialHeaders } from './credentials.js';
import type { StreamResult } from './operation.js';
import type { StreamStart } from './operations/changes.js';
import { fastifyPath, sendOutcome } from './rest.js';

const API_PREFIXES = ['/v1', '/api/v1'] as const;

export async function changeStreamRoutes(app: FastifyInstance, deps: ChangeStreamDeps): Promise<void> {
  // A server closing ends its streams first: it would otherwise wait for each to reach its hour.
  const closing = new AbortController();
  app.addHook('preClose', async () => closing.abort());
  const open = async (req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    // `api_key` in the query never authenticates and is not an error: dropped unread, as on every route.
    const { api_key: _ignored, ...query } = req.query as Record<string, unknown>;
    // EventSource reconnects to the URL it first opened, with Last-Event-ID: the header wins over the query.
    const header = req.headers['last-event-id'];
    const args = header === undefined ? query : { ...query, last_event_id: header };
    const member = await deps.member(req);
    const headers = credentialHeaders(req);
    const outcome = await deps.pipeline.invoke(deps.operation, {
      surface: 'rest',
      headers,
      args,
      csv: false,
      requestId: req.id,
      clientIp: req.ip,
      member,
    });
    recordCall(req, outcome, 'rest');
    const result = outcome.status === 200 ? (outcome.result as StreamResult | null) : null;
    if (!result) return sendOutcome(reply, outcome);
    const start = result.stream as StreamStart;
    // Its credits are taken by the same credential, through the same gate (admitted: a key, or a member).
    const presented = presentedKey(headers);
    const credential: Credential = member ? { member } : { key: (presented as { key: string }).key };
    if (!(await chargeStart(deps, req, reply, { credential, headers: outcome.headers, lease: start.lease })))
      return reply;
    return runStream(deps, req, reply, { start, credential, headers: outcome.headers, closing: closing.signal });
  };

  const headNotAllowed = async (_req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> =>
    reply.code(405).header('allow', 'GET').send();
  for (const prefix of API_PREFIXES) {
    app.get(`${prefix}${fastifyPath(deps.operation.path)}`, open);
    app.head(`${prefix}${fastifyPath(deps.operation.path)}`, headNotAllowed);
  }
}

/**
 * Takes the connection's credit through the gate and keeps it, with its request-log row and the day's usage, before
 * the stream's first byte. False when it was not taken (the answer written): the client gone (499, nothing taken),
 * the gate's refusal (402, 429), or a credit that could not be kept (a free 500). A stream not opened gives its lease
 * back before its answer, so that a client that reads the refusal can open another at once.
 */
async function chargeStart(
  deps: ChangeStreamDeps,
  req: FastifyRequest,
  reply: FastifyReply,
  s: { readonly credential: Credential; readonly headers: Record<string, string>; readonly lease: string },
): Promise<boolean> {
  const socket = req.raw.socket as { destroyed?: boolean } | null;
  const gone = (): boolean => reply.raw.destroyed || socket?.destroyed === true;
  const opened = await tryCharge(deps, req, reply, s.credential, gone);
  if (opened === null) return true;
  // A lease that cannot be given back runs out within a minute (STREAM_LEASE_MS): the answer goes out regardless.
  await dropStreamLease(deps.services.changes.leases, s.lease).catch((err: unknown) =>
    deps.errors.error(err, { request_id: req.id }, 'a stream not opened did not give its lease back'),
  );
  if (opened === CLIENT_GONE) {
    if (req.call) req.call.logged = true;
    reply.code(CLIENT_GONE).send();
    return false;
  }
  const retry = opened.extra.retryAfter === undefined ? {} : { 'retry-after': String(opened.extra.retryAfter) };
  reply
    .code(opened.status)
    .headers({ ...s.headers, ...retry })
    .send(opened.body(req.id));
  return false;
}

/** The connection's credit taken and kept (null), or why not: CLIENT_GONE (its row logged) or the refusal. */
async function tryCharge(
  deps: ChangeStreamDeps,
  req: FastifyRequest,
  reply: FastifyReply,
  credential: Credential,
  gone: () => boolean,
): Promise<ApiError | typeof CLIENT_GONE | null> {
  if (gone()) {
    deps.log(logRow(req, reply, CLIENT_GONE, deps.clock));
    return CLIENT_GONE;
  }
  try {
    const refused = await takeCredit(deps, credential, logRow(req, reply, 200, deps.clock), gone);
    if (refused === null && req.call) Object.assign(req.call, { credits: 1, logged: true });
    return refused;
  } catch (err) {
    deps.errors.error(err, { request_id: req.id }, "taking a stream's credit failed");
    return internalError();
  }
}
