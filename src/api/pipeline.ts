// The one request pipeline every call passes, REST or MCP, in the order of DEVELOPERS.md:
// authenticate, check the plan's surface, rate limit, validate, plan gate, reserve a credit,
// handle, settle. Authentication, the plan gate and the reservation share one database round trip;
// the stages still decide in that order.
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import type { z } from 'zod';
import type { Caller, Gate, GateResult } from '../accounts/gate.js';
import { presentedKey } from '../accounts/keys.js';
import type { Surface } from '../accounts/plans.js';
import type { Clock } from '../clock.js';
import { openWindow, rateLimitHeaders, type RateDecision, type RateLimiter } from '../limits/index.js';
import { isQueryCanceled } from '../db/pool.js';
import { ApiError, badRequest, internalError, queryTimedOut, unauthorized, type Details } from './errors.js';
import type { FileResult, ListResult, Operation, SingleResult } from './operation.js';
import { KEYLESS_PER_MINUTE } from './operations/keyless.js';
import type { Services } from './services.js';

export interface Invocation {
  readonly surface: Surface;
  readonly headers: IncomingHttpHeaders;
  /** Query and path parameters (REST) or tool arguments (MCP), not yet validated. */
  readonly args: Record<string, unknown>;
  readonly csv: boolean;
  readonly requestId: string;
  /** The client's address (keyless routes are limited per address). */
  readonly clientIp: string;
}

export interface Outcome {
  readonly status: number;
  /** The full JSON body (envelope included), or the error envelope. */
  readonly body: unknown;
  /** The handler's result on success, for renderings other than JSON (CSV). */
  readonly result: ListResult | SingleResult | FileResult | null;
  readonly headers: Record<string, string>;
  readonly caller: Caller | null;
  readonly credits: 0 | 1;
  readonly error: ApiError | null;
}

export interface PipelineDeps {
  readonly gate: Gate;
  readonly limiter: RateLimiter;
  readonly clock: Clock;
  readonly services: Services;
  readonly log: FastifyBaseLogger;
}

/** Zod issues as `{ param: reason }`; an unknown parameter is named as such. */
export function validationDetails(error: z.ZodError): Details {
  const details: Details = {};
  const add = (param: string, reason: string): void => {
    details[param] = details[param] ? `${details[param]}; ${reason}` : reason;
  };
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') for (const k of issue.keys) add(k, 'unknown parameter');
    else add(issue.path.length ? issue.path.join('.') : '(request)', issue.message);
  }
  return details;
}

export class Pipeline {
  constructor(private readonly deps: PipelineDeps) {}

  async invoke(op: Operation, inv: Invocation): Promise<Outcome> {
    return op.keyless ? this.invokeKeyless(op, op.keyless.perMinute, inv) : this.invokeMetered(op, inv);
  }

  /** Keyless routes: a window per client address and route, validation, the handler. Never metered. */
  private async invokeKeyless(op: Operation, perMinute: number, inv: Invocation): Promise<Outcome> {
    let rate: RateDecision | null = null;
    try {
      rate = await this.deps.limiter.hit(`ip:${inv.clientIp}:${op.name}`, perMinute);
      if (!rate.allowed) throw perMinuteRefusal(rate);
      const parsed = op.params.safeParse(inv.args);
      if (!parsed.success) throw badRequest(validationDetails(parsed.error));
      const result = await op.handle(parsed.data, {
        requestId: inv.requestId,
        caller: null,
        now: this.deps.clock.now(),
        services: this.deps.services,
      });
      const body = await this.envelope(op, result, inv.requestId);
      return {
        status: 200,
        body,
        result,
        headers: rate ? rateLimitHeaders(rate) : {},
        caller: null,
        credits: 0,
        error: null,
      };
    } catch (err) {
      return this.failure(op, inv, err, rate, null, 0);
    }
  }

  /**
   * Admits a request that runs no operation (MCP `initialize`, `tools/list`, `ping`, notifications):
   * the same key and surface checks, but no per-minute count and no credit. Its rate-limit headers
   * show the workspace's window as it stands.
   */
  async admit(inv: Pick<Invocation, 'surface' | 'headers' | 'requestId'>): Promise<Outcome> {
    let caller: Caller | null = null;
    try {
      const creds = presentedKey(inv.headers);
      if (creds.kind !== 'key') throw unauthorized();
      const gate = await this.deps.gate.check({
        key: creds.key,
        surface: inv.surface,
        reserve: false,
        leadFeed: false,
        csv: false,
        requestId: inv.requestId,
      });
      caller = gate.caller;
      if (gate.outcome === 'unauthorized' || !caller) throw unauthorized();
      if (gate.outcome === 'rest_disabled' || gate.outcome === 'mcp_disabled') throw surfaceRefusal(gate.outcome);
      const rate = await this.deps.limiter.peek(workspaceKey(caller), caller.perMinute);
      return {
        status: 200,
        body: null,
        result: null,
        headers: rateLimitHeaders(rate),
        caller,
        credits: 0,
        error: null,
      };
    } catch (err) {
      const apiError = err instanceof ApiError ? err : internalError();
      if (!(err instanceof ApiError))
        this.deps.log.error({ err, request_id: inv.requestId }, 'admitting a request failed');
      return {
        status: apiError.status,
        body: apiError.body(inv.requestId),
        result: null,
        headers: {},
        caller,
        credits: 0,
        error: apiError,
      };
    }
  }

  private async invokeMetered(op: Operation, inv: Invocation): Promise<Outcome> {
    let caller: Caller | null = null;
    let rate: RateDecision | null = null;
    let reservation: number | null = null;
    const headers = (): Record<string, string> => (rate ? rateLimitHeaders(rate) : {});
    try {
      const creds = presentedKey(inv.headers);
      if (creds.kind !== 'key') throw unauthorized();
      const parsed = op.params.safeParse(inv.args);
      const gate = await this.deps.gate.check({
        key: creds.key,
        surface: inv.surface,
        reserve: op.metered && parsed.success,
        leadFeed: op.leadFeed === true,
        csv: inv.csv,
        requestId: inv.requestId,
      });
      caller = gate.caller;
      reservation = gate.reservation;
      if (gate.outcome === 'unauthorized' || !caller) throw unauthorized();
      if (gate.outcome === 'rest_disabled' || gate.outcome === 'mcp_disabled') throw surfaceRefusal(gate.outcome);

      rate = await this.deps.limiter.hit(workspaceKey(caller), caller.perMinute);
      if (!rate.allowed) throw perMinuteRefusal(rate);
      if (!parsed.success) throw badRequest(validationDetails(parsed.error));
      refuseByGate(gate);

      const result = await op.handle(parsed.data, {
        requestId: inv.requestId,
        caller,
        now: this.deps.clock.now(),
        services: this.deps.services,
      });
      const body = await this.envelope(op, result, inv.requestId);
      const credits = await this.settle(reservation, false);
      reservation = null;
      return {
        status: 200,
        body,
        result,
        headers: { ...headers(), ...fileHeaders(result) },
        caller,
        credits,
        error: null,
      };
    } catch (err) {
      // A 404 is an answer and costs its credit; anything else refunds it.
      const release = !(err instanceof ApiError && err.status === 404);
      rate ??= await this.currentWindow(caller);
      return this.failure(op, inv, err, rate, caller, await this.settleQuietly(reservation, release));
    }
  }

  /**
   * The window for an answer given before the rate stage (401, a surface refusal), read without
   * counting: the caller's workspace window as its next request will meet it or, with no caller, the
   * keyless allowance of the client's address, which unauthenticated answers never consume.
   */
  async currentWindow(caller: Caller | null): Promise<RateDecision> {
    return caller
      ? this.deps.limiter.peek(workspaceKey(caller), caller.perMinute)
      : openWindow(KEYLESS_PER_MINUTE, this.deps.clock.now().getTime());
  }

  private failure(
    op: Operation,
    inv: Invocation,
    err: unknown,
    rate: RateDecision | null,
    caller: Caller | null,
    credits: 0 | 1,
  ): Outcome {
    const apiError = err instanceof ApiError ? err : isQueryCanceled(err) ? queryTimedOut() : internalError();
    if (!(err instanceof ApiError))
      this.deps.log.error({ err, operation: op.name, request_id: inv.requestId }, 'operation failed');
    const headers = rate ? rateLimitHeaders(rate) : {};
    if (apiError.extra.retryAfter !== undefined) headers['retry-after'] = String(apiError.extra.retryAfter);
    return {
      status: apiError.status,
      body: apiError.body(inv.requestId),
      result: null,
      headers,
      caller,
      credits,
      error: apiError,
    };
  }

  /** Settling after a failure must not turn the answer into another failure. */
  private async settleQuietly(reservation: number | null, release: boolean): Promise<0 | 1> {
    try {
      return await this.settle(reservation, release);
    } catch (err) {
      this.deps.log.error({ err, reservation }, 'settling a reservation failed; the sweeper will release it');
      return 0;
    }
  }

  /** Settles a reservation (if any); returns the credits the request finally cost. */
  private async settle(reservation: number | null, release: boolean): Promise<0 | 1> {
    if (reservation === null) return 0;
    await this.deps.gate.settle(reservation, release);
    return release ? 0 : 1;
  }

  async envelope(op: Operation, result: ListResult | SingleResult | FileResult, requestId: string): Promise<unknown> {
    if ('file' in result) return result.file.body;
    if (op.kind === 'single') return { data: (result as SingleResult).data, meta: { request_id: requestId } };
    const list = result as ListResult;
    const meta = { request_id: requestId, dataset_status: await this.deps.services.dataset.status() };
    return list.facets
      ? { data: list.data, pagination: list.pagination, facets: list.facets, meta }
      : { data: list.data, pagination: list.pagination, meta };
  }
}

function fileHeaders(result: ListResult | SingleResult | FileResult): Record<string, string> {
  if (!('file' in result)) return {};
  return {
    'content-type': result.file.contentType,
    'content-disposition': `attachment; filename="${result.file.filename}"`,
  };
}

/** Every surface (REST and MCP) of a workspace counts in one window. */
const workspaceKey = (caller: Caller): string => `ws:${caller.workspaceId}`;

/** The 429 of a full per-minute window (also used by the billing routes). */
export function perMinuteRefusal(rate: RateDecision): ApiError {
  return new ApiError(
    'rate_limited',
    `Rate limit of ${rate.limit} requests per minute exceeded. Retry in ${rate.resetSeconds} seconds.`,
    {
      retryAfter: rate.resetSeconds,
    },
  );
}

function surfaceRefusal(outcome: 'rest_disabled' | 'mcp_disabled'): ApiError {
  return outcome === 'rest_disabled'
    ? new ApiError(
        'rest_disabled',
        'Your plan does not include the REST API; use the MCP endpoint or upgrade your plan.',
      )
    : new ApiError('mcp_disabled', 'Your plan does not include MCP access; use the REST API or upgrade your plan.');
}

function refuseByGate(gate: GateResult): void {
  switch (gate.outcome) {
    case 'forbidden':
      throw new ApiError(
        'forbidden',
        'Your plan does not include this feature (the lead feed needs the Lead Feed or Enterprise plan; CSV needs Pro or above).',
      );
    case 'payment_required':
      // The trial, or a cancelled subscription (no new cycle will bring credits back).
      throw new ApiError(
        'payment_required',
        gate.caller?.plan === 'free_trial'
          ? 'Your free trial credits are used up. Upgrade to a paid plan or buy a credit pack to continue.'
          : 'Your subscription is cancelled and its credits are used up. Upgrade to a paid plan again or buy a credit pack to continue.',
        {
          creditBalance: gate.creditBalance ?? 0,
        },
      );
    case 'quota_exhausted':
      throw new ApiError(
        'rate_limited',
        `Monthly credit quota exhausted. It renews with the next billing cycle in ${gate.retryAfter} seconds.`,
        {
          retryAfter: gate.retryAfter ?? 0,
          creditBalance: gate.creditBalance ?? 0,
        },
      );
    default:
  }
}
