// What a request tells the request log (src/accounts/request-log.ts) about who called and what it cost,
// set on the request by whichever surface answered it (REST, MCP, the billing routes), and the log row
// built from it: at the answer's settlement for a charged answer, when the response ends for the others.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Caller } from '../accounts/gate.js';
import type { RequestLogRow } from '../accounts/request-log.js';
import type { Clock } from '../clock.js';
import type { Outcome } from './outcome.js';

/** What a request tells the request log about who called and what it cost. */
export interface CallRecord {
  workspaceId: string | null;
  keyId: string | null;
  /** A member signed in to the web app, calling through the same-origin proxy. */
  userId: string | null;
  /** A test key's call (its credits are the test pool's, not the workspace's usage). */
  testKey: boolean;
  credits: number;
  surface: 'rest' | 'mcp' | 'keyless';
  /** Its log row was written with its charge (src/api/delivery.ts): the response's end writes none. */
  logged?: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    call?: CallRecord;
  }
}

export function recordCall(req: FastifyRequest, outcome: Outcome, surface: CallRecord['surface']): void {
  req.call = callRecord(outcome.caller, outcome.charges.length, surface);
}

export function callRecord(caller: Caller | null, credits: number, surface: CallRecord['surface']): CallRecord {
  return {
    workspaceId: caller?.workspaceId ?? null,
    keyId: caller?.keyId ?? null,
    userId: caller?.userId ?? null,
    testKey: caller?.keyKind === 'test',
    credits,
    surface,
  };
}

/** The request's log row, as of now, for an answer of `status` (`call`: what the request tells, if not yet set). */
export function logRow(
  req: FastifyRequest,
  reply: FastifyReply,
  status: number,
  clock: Clock,
  call: CallRecord | undefined = req.call,
): RequestLogRow {
  return {
    request_id: req.id,
    at: new Date(clock.now().getTime() - reply.elapsedTime),
    workspace_id: call?.workspaceId ?? null,
    key_id: call?.keyId ?? null,
    user_id: call?.userId ?? null,
    test_key: call?.testKey ?? false,
    surface: call?.surface ?? (req.url.startsWith('/mcp') ? 'mcp' : 'rest'),
    method: req.method,
    // The route's pattern, never the raw URL (whose query could hold an `api_key`).
    route: req.routeOptions.url ?? 'unmatched',
    status,
    duration_ms: reply.elapsedTime,
    credits: call?.credits ?? 0,
    client_ip: req.ip,
  };
}
