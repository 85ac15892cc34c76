// One call of the reconciliation service, through the same stages as any call (docs/reconciliation.md, "Costs"):
// the credential in the path, then the gate on the workspace's live credits (the member credential of the same-origin
// proxy: no key hash), the plan's REST surface, the workspace's per-minute window, validation, the plan gate with one
// reservation per credit the call costs, the handler, and the settlement of src/api/delivery.ts (kept as the answer
// is sent, refunded when it is not). The gate's and the settlement's SQL are the API keys' own.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import type { Caller, Gate, GateResult } from '../../accounts/gate.js';
import { findReconcileCredential } from '../../accounts/reconcile-credentials.js';
import type { Settlement } from '../../accounts/settlement.js';
import type { Clock } from '../../clock.js';
import { isQueryCanceled } from '../../db/pool.js';
import {
  KEYLESS_PER_MINUTE,
  openWindow,
  rateLimitHeaders,
  workspaceWindow,
  type RateDecision,
  type RateLimiter,
} from '../../ratelimit/index.js';
import { notKept, type Delivery } from '../delivery.js';
import type { ErrorLog } from '../error-log.js';
import { ApiError, badRequest, internalError, queryTimedOut, type Details } from '../errors.js';
import { perMinuteRefusal, refuseBatchByGate, refuseByGate, surfaceRefusal } from '../refusals.js';
import { reserved } from '../outcome.js';
import type { Services } from '../services.js';

export interface ReconcileDeps {
  readonly pool: pg.Pool;
  readonly pepper: string;
  readonly gate: Gate;
  readonly limiter: RateLimiter;
  readonly clock: Clock;
  readonly settlement: Settlement;
  readonly delivery: Delivery;
  readonly errors: ErrorLog;
  readonly services: Services;
  /** Where clients reach the service (PUBLIC_BASE_URL), for the manifest's addresses. */
  readonly baseUrl: string;
}

/** What a handler answers: JSON (serialized here) or a page. */
export type Reply = { readonly json: unknown } | { readonly html: string; readonly headers: Record<string, string> };

export interface CallSpec {
  readonly token: string;
  /** Credits the call costs when answered (0: free). */
  readonly credits: number;
  /** A batch of queries, one credit each: a balance short of it refuses it whole, saying so. */
  readonly batch?: boolean;
  /** Why its input cannot be read, by parameter; null when it can. */
  readonly invalid: Details | null;
  /** Its name in the error log. */
  readonly name: string;
  handle(caller: Caller): Promise<Reply>;
}

/** Every answer of the service may be read by a page of another origin (v0.2, "Cross-Origin Access"). */
const CORS = { 'access-control-allow-origin': '*' } as const;

/** One 401 for every credential that does not open the service: unknown, revoked, or of a suspended workspace. */
const unknownCredential = (): ApiError =>
  new ApiError(
    'unauthorized',
    'Unknown or revoked reconciliation credential. Create one on the account keys page or with the API.',
  );

export async function reconcileCall(
  deps: ReconcileDeps,
  req: FastifyRequest,
  reply: FastifyReply,
  spec: CallSpec,
): Promise<FastifyReply> {
  let caller: Caller | null = null;
  let rate: RateDecision | null = null;
  let charges: number[] = [];
  req.call = { workspaceId: null, keyId: null, userId: null, testKey: false, credits: 0, surface: 'rest' };
  try {
    const identity = await findReconcileCredential(deps.pool, spec.token, deps.pepper, deps.clock.now());
    if (!identity) throw unknownCredential();
    const reserve = spec.invalid === null && spec.credits > 0;
    const gates = await checkGate(deps, identity, reserve ? spec.credits : 1, reserve, req.id);
    charges = gates.flatMap(reserved);
    const first = gates[0]!;
    if (first.outcome === 'unauthorized' || !first.caller) throw unknownCredential();
    // The log names the credential where a key's call names the key.
    caller = { ...first.caller, keyId: identity.id, userId: null };
    req.call = { ...req.call, workspaceId: caller.workspaceId, keyId: identity.id };
    if (first.outcome === 'rest_disabled' || first.outcome === 'mcp_disabled') throw surfaceRefusal(first.outcome);
    rate = await deps.limiter.hit(workspaceWindow(caller.workspaceId), caller.perMinute);
    if (!rate.allowed) throw perMinuteRefusal(rate);
    if (spec.invalid) throw badRequest(spec.invalid);
    for (const g of gates)
      if (spec.batch && gates.length > 1) refuseBatchByGate(g, gates.length);
      else refuseByGate(g);
    const answer = await spec.handle(caller);
    req.call.credits = charges.length;
    const headers = { ...rateLimitHeaders(rate), ...CORS, ...('html' in answer ? answer.headers : {}) };
    const written =
      'html' in answer
        ? { status: 200, headers, type: 'text/html; charset=utf-8', body: answer.html }
        : { status: 200, headers, type: 'application/json; charset=utf-8', body: JSON.stringify(answer.json) };
    const kept = charges.map((ledgerId) => ({ ledgerId, idempotency: null }));
    return deps.delivery.send(req, reply, kept, written, () => failed(req, notKept(), headers));
  } catch (err) {
    const apiError = err instanceof ApiError ? err : isQueryCanceled(err) ? queryTimedOut() : internalError();
    // A 404 is an answer and costs its credits, kept as it is sent; anything else is refunded now.
    const answered = apiError.status === 404 ? charges : [];
    await deps.settlement.release(req.id, apiError.status === 404 ? [] : charges, apiError.status);
    if (!(err instanceof ApiError))
      deps.errors.error(err, { request_id: req.id, reconcile: spec.name }, 'a reconciliation call failed');
    rate ??= caller
      ? await deps.limiter.peek(workspaceWindow(caller.workspaceId), caller.perMinute)
      : openWindow(KEYLESS_PER_MINUTE, deps.clock.now().getTime());
    const headers: Record<string, string> = { ...rateLimitHeaders(rate), ...CORS };
    if (apiError.extra.retryAfter !== undefined) headers['retry-after'] = String(apiError.extra.retryAfter);
    req.call.credits = answered.length;
    const kept = answered.map((ledgerId) => ({ ledgerId, idempotency: null }));
    return deps.delivery.send(req, reply, kept, failed(req, apiError, headers), () => failed(req, notKept(), headers));
  }
}

function failed(req: FastifyRequest, err: ApiError, headers: Record<string, string>) {
  return {
    status: err.status,
    headers,
    type: 'application/json; charset=utf-8',
    body: JSON.stringify(err.body(req.id)),
  };
}

/**
 * The gate, once per credit (each reservation its own ledger entry, all under the request's id), as the workspace:
 * the member credential takes its live credits without a key hash. Its user id only groups the gate's batches: the
 * credential's calls go together. Every check is awaited, so that no reservation made is left unknown.
 */
async function checkGate(
  deps: ReconcileDeps,
  identity: { id: string; workspaceId: string },
  count: number,
  reserve: boolean,
  requestId: string,
): Promise<GateResult[]> {
  const member = { workspaceId: identity.workspaceId, userId: identity.id };
  const settled = await Promise.allSettled(
    Array.from({ length: count }, () =>
      deps.gate.check({ credential: { member }, surface: 'rest', reserve, leadFeed: false, csv: false, requestId }),
    ),
  );
  const failure = settled.find((s) => s.status === 'rejected');
  if (failure) {
    const made = settled.flatMap((s) => (s.status === 'fulfilled' ? reserved(s.value) : []));
    await deps.settlement.release(requestId, made, internalError().status);
    throw failure.reason;
  }
  return settled.map((s) => (s as PromiseFulfilledResult<GateResult>).value);
}
