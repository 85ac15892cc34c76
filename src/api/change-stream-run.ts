// An open change stream (docs/contract.md, "Change feed"): the changes after its position as events, read a batch
// at a time and on as imports commit (the feed's watcher wakes it), a heartbeat comment on a quiet stream, its
// lease renewed, a credit for each block of events past the first (the connection's credit covers that one), and
// its end after an hour, or at a refused credit, or at a failure, said by a last `end` event.
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { STREAM_EVENTS_PER_CREDIT } from '../accounts/catalog.js';
import type { Credential, Gate, GateResult } from '../accounts/gate.js';
import type { RequestLogRow } from '../accounts/request-log.js';
import { CLIENT_GONE, type Settlement } from '../accounts/settlement.js';
import { dropStreamLease, renewStreamLease } from '../accounts/stream-leases.js';
import type { Clock } from '../clock.js';
import { logRow } from './call-record.js';
import { notKept } from './delivery.js';
import { ApiError, internalError, unauthorized } from './errors.js';
import type { ErrorLog } from './error-log.js';
import { newRequestId } from './ids.js';
import type { Operation } from './operation.js';
import type { StreamStart } from './operations/changes.js';
import type { MemberAuth, Pipeline } from './pipeline.js';
import { refuseByGate, surfaceRefusal } from './refusals.js';
import type { Services } from './services.js';

/** EventSource waits this long before it reconnects, after a connection's end or a dropped network. */
const RETRY_MS = 1000;
/** A comment this often on a quiet stream: proxies and load balancers close connections idle for 30 to 60 s. */
const STREAM_HEARTBEAT_MS = 15_000;
/** A connection ends after this long (the client reconnects): its key and plan are checked again at least hourly. */
const STREAM_MAX_MS = 60 * 60_000;
/** Changes read a query: a backlog streams in few reads, and a slow client holds little in memory. */
const STREAM_BATCH = 500;

export interface ChangeStreamDeps {
  readonly pipeline: Pipeline;
  readonly gate: Gate;
  readonly settlement: Settlement;
  readonly clock: Clock;
  readonly errors: ErrorLog;
  readonly services: Services;
  readonly member: MemberAuth;
  /** Logs the row of a request whose client left before its stream opened (its response's end logs none). */
  readonly log: (row: RequestLogRow) => void;
  /** The stream's operation, from the operation table. */
  readonly operation: Operation;
}

export interface OpenStream {
  readonly start: StreamStart;
  readonly credential: Credential;
  /** The rate-limit headers of the call that opened it. */
  readonly headers: Record<string, string>;
  /** Aborted when the server closes: its streams end (their clients reconnect), or it would wait an hour for them. */
  readonly closing: AbortSignal;
}

/** Why the server ended a stream, as its last event says (a client's close has no last event). */
interface End {
  reason: 'connection_time' | 'shutdown' | 'refused' | 'error';
  error?: ReturnType<ApiError['body']>['error'];
}

/** Writes the stream as the answer and runs it in the background until it ends. */
export function runStream(
  deps: ChangeStreamDeps,
  req: FastifyRequest,
  reply: FastifyReply,
  s: OpenStream,
): FastifyReply {
  const body = new PassThrough();
  const closed = new AbortController();
  reply.raw.once('close', () => closed.abort());
  if (reply.raw.destroyed) closed.abort();
  // A write after the client left fails the stream, which only says it left.
  body.on('error', () => closed.abort());
  const stopped = AbortSignal.any([closed.signal, s.closing]);
  let lastWrite = Date.now();
  const write = async (text: string): Promise<void> => {
    lastWrite = Date.now();
    // A slow client: wait for its buffer to drain (or for it to leave) before reading more.
    if (!body.write(text)) await once(body, 'drain', { signal: stopped });
  };

  /** A client gone says nothing more; a server closing says so. */
  const stopping = (): End | null => (closed.signal.aborted ? null : { reason: 'shutdown' });

  const run = async (): Promise<End | null> => {
    const { feed, watcher, leases } = deps.services.changes;
    const deadline = Date.now() + STREAM_MAX_MS;
    let position = s.start.position;
    let sent = 0;
    let renewed = Date.now();
    await write(`retry: ${RETRY_MS}\n: changes after ${position}\n\n`);
    while (Date.now() < deadline) {
      const page = await feed.after(position, s.start.filters, STREAM_BATCH);
      for (const row of page.rows) {
        if (stopped.aborted) return stopping();
        if (sent > 0 && sent % STREAM_EVENTS_PER_CREDIT === 0) {
          // Each block's credit has its own row in the request log, under its own request id.
          const log = { ...logRow(req, reply, 200, deps.clock), request_id: newRequestId(), duration_ms: 0 };
          const refused = await takeCredit(deps, s.credential, { ...log, at: deps.clock.now() }, () => stopped.aborted);
          if (refused === CLIENT_GONE) return stopping();
          if (refused)
            return { reason: refused.status >= 500 ? 'error' : 'refused', error: refused.body(req.id).error };
        }
        await write(`id: ${row.sequence}\nevent: change\ndata: ${JSON.stringify(row)}\n\n`);
        sent++;
      }
      position = page.scanned;
      if (stopped.aborted) return stopping();
      if (Date.now() - renewed >= STREAM_HEARTBEAT_MS) {
        await renewStreamLease(leases, s.start.lease, deps.clock.now());
        renewed = Date.now();
      }
      if (page.more) continue;
      if (Date.now() - lastWrite >= STREAM_HEARTBEAT_MS) await write(': heartbeat\n\n');
      const quietFor = Math.min(STREAM_HEARTBEAT_MS - (Date.now() - lastWrite), deadline - Date.now());
      await watcher.wait(position, Math.max(quietFor, 0), stopped);
      if (stopped.aborted) return stopping();
    }
    return { reason: 'connection_time' };
  };

  reply
    .code(200)
    .headers(s.headers)
    .header('content-type', 'text/event-stream; charset=utf-8')
    .header('cache-control', 'no-cache')
    // Proxies that buffer answers (nginx) pass this one on as it is written.
    .header('x-accel-buffering', 'no')
    // Its end closes the connection (the client opens a new one to resume): a closing server waits for no socket.
    .header('connection', 'close')
    .send(body);
  void run()
    .catch((err: unknown): End | null => {
      if (stopped.aborted) return stopping();
      deps.errors.error(err, { request_id: req.id }, 'a change stream failed');
      return { reason: 'error', error: internalError().body(req.id).error };
    })
    .then(async (end) => {
      if (end && !closed.signal.aborted) body.write(`event: end\ndata: ${JSON.stringify(end)}\n\n`);
      body.end();
      await dropStreamLease(deps.services.changes.leases, s.start.lease);
    })
    .catch((err: unknown) =>
      deps.errors.error(err, { request_id: req.id }, "a change stream's lease was not given back"),
    );
  return reply;
}

/**
 * Takes one credit of `credential` through the gate (the pools, order and refusals of every request's) and keeps it
 * with its request-log row `log`; the refusal when the gate refused it or it could not be kept, CLIENT_GONE (and
 * refunded) when the connection is `gone` once it is kept, else null.
 */
export async function takeCredit(
  deps: ChangeStreamDeps,
  credential: Credential,
  log: Omit<RequestLogRow, 'credits'>,
  gone: () => boolean,
): Promise<ApiError | typeof CLIENT_GONE | null> {
  const requestId = log.request_id;
  const gate = await deps.gate.check({
    credential,
    surface: 'rest',
    reserve: true,
    leadFeed: false,
    csv: false,
    requestId,
  });
  const charges = gate.reservation === null ? [] : [gate.reservation];
  const refusal = refusalOf(gate);
  if (refusal) {
    await deps.settlement.release(requestId, charges, refusal.status);
    return refusal;
  }
  try {
    const kept = await deps.settlement.keep({
      log,
      charges: charges.map((ledgerId) => ({ ledgerId, idempotency: null })),
    });
    if (!kept) return notKept();
    // The connection closed while the credit was kept: what it paid for is not sent, so it is refunded.
    if (!gone()) return null;
    await deps.settlement.undelivered(requestId, charges);
    return CLIENT_GONE;
  } catch (err) {
    // Committed or not, nobody can tell: refunded either way, and nothing is sent for it.
    deps.errors.error(err, { request_id: requestId }, "keeping a stream's credit failed; it is refunded");
    await deps.settlement.undelivered(requestId, charges);
    return notKept();
  }
}

/** The gate's refusal of a credit, as the error the stream ends with; null when it reserved one. */
function refusalOf(gate: GateResult): ApiError | null {
  if (gate.outcome === 'unauthorized' || !gate.caller) return unauthorized();
  if (gate.outcome === 'rest_disabled' || gate.outcome === 'mcp_disabled') return surfaceRefusal(gate.outcome);
  try {
    refuseByGate(gate);
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  return gate.reservation === null ? internalError() : null;
}
