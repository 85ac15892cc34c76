// The one request pipeline every call passes, REST or MCP, in the order of the README's "How a request
// flows": authenticate, check the plan's surface, rate limit, validate, plan gate, reserve a credit,
// handle, settle. Authentication, the plan gate and the reservation share one database round trip;
// the stages still decide in that order. A failure is refunded here; a charged answer is settled as it
// is sent (src/api/delivery.ts). Calls that run no operation pass its first stages too: MCP's
// free methods (admit) and the account routes of billing (account). On the same-origin proxy a member
// signed in to the web app may call instead of a key (`member`): the same stages, on the workspace's live
// credits.
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyRequest } from 'fastify';
import type { Caller, Credential, Gate, GateResult, MemberCall, SignedInMember } from '../accounts/gate.js';
import type { IdempotencyKeys } from '../accounts/idempotency.js';
import type { Settlement } from '../accounts/settlement.js';
import { presentedKey } from '../accounts/keys.js';
import type { Surface } from '../accounts/catalog.js';
import type { Clock } from '../clock.js';
import {
  KEYLESS_PER_MINUTE,
  addressWindow,
  openWindow,
  rateLimitHeaders,
  workspaceWindow,
  type RateDecision,
  type RateLimiter,
} from '../ratelimit/index.js';
import type { ErrorLog } from './error-log.js';
import { ApiError, badRequest, unauthorized } from './errors.js';
import { idempotencyMismatch, idempotencyRunning, readIdempotencyKey, requestFingerprint } from './idempotency.js';
import { envelope } from './envelope.js';
import type { Operation } from './operation.js';
import { failed, fileHeaders, replayed, reserved, success, type Outcome, type Result } from './outcome.js';
import {
  parseOrRefuse,
  perMinuteRefusal,
  refuseBatchByGate,
  refuseByGate,
  refuseByPlan,
  refuseSurface,
  validationDetails,
} from './refusals.js';
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
  /**
   * A member signed in to the web app, calling through the same-origin proxy with no key: its session and
   * CSRF token already checked (src/web/proxy-auth.ts). Never set on /v1 or /mcp.
   */
  readonly member?: MemberCall | null;
  /** The Idempotency-Key presented (REST's header, an MCP call's `_meta`), unread. */
  readonly idempotencyKey?: unknown;
  /**
   * Starts keeping the call's one credit while its handler runs (src/api/delivery.ts, begin), where the surface
   * answers one call a request; without it the credit is kept as the answer is sent.
   */
  readonly keepEarly?: (caller: Caller, charge: number) => void;
}

/** Finds the member signed in to the web app behind a request on the same-origin proxy (src/web/proxy-auth.ts). */
export type MemberAuth = (req: FastifyRequest) => Promise<SignedInMember | null>;

/** What the first stages need of a call that runs no operation. */
export type Admission = Pick<Invocation, 'surface' | 'headers' | 'requestId' | 'member'>;

export interface PipelineDeps {
  readonly gate: Gate;
  readonly limiter: RateLimiter;
  readonly clock: Clock;
  readonly services: Services;
  readonly errors: ErrorLog;
  readonly settlement: Settlement;
  readonly idempotency: IdempotencyKeys;
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
      rate = await this.deps.limiter.hit(addressWindow(inv.clientIp, op.name), perMinute);
      if (!rate.allowed) throw perMinuteRefusal(rate);
      const params = parseOrRefuse(op.params, inv.args);
      const result = await op.handle(params, this.context(inv, null));
      const body = await envelope(op, result, inv.requestId, this.deps.services.dataset);
      return success(body, result, rateLimitHeaders(rate), null);
    } catch (err) {
      return failed(this.deps.errors, {
        err,
        rate,
        caller: null,
        requestId: inv.requestId,
        log: ['operation failed', { operation: op.name }],
      });
    }
  }

  private async invokeMetered(op: Operation, inv: Invocation): Promise<Outcome> {
    let caller: Caller | null = null;
    let rate: RateDecision | null = null;
    let charges: number[] = [];
    let claimed: string | null = null;
    try {
      const parsed = this.deps.services.cursors.parse(op, inv.args);
      const idempotency = readIdempotencyKey(inv.idempotencyKey);
      const valid = parsed.success && !(idempotency && 'invalid' in idempotency);
      // Under a key the credit is reserved once the key is claimed: a replay costs nothing.
      const keyed = op.metered && valid && idempotency !== null;
      // A plan the gate in SQL does not judge (bulk snapshots) is judged before the credit is reserved.
      const judged = op.metered && valid && op.snapshots === true;
      const ask = { leadFeed: op.leadFeed === true, csv: inv.csv };
      const gate = await this.authenticate(inv, { ...ask, reserve: op.metered && valid && !keyed && !judged });
      caller = gate.caller;
      charges = reserved(gate);
      refuseSurface(gate);
      rate = await this.countCall(caller);
      if (!parsed.success || (idempotency && 'invalid' in idempotency)) {
        const details = parsed.success ? {} : validationDetails(parsed.error);
        if (idempotency && 'invalid' in idempotency) details['Idempotency-Key'] = idempotency.invalid;
        throw badRequest(details);
      }
      refuseByGate(gate);
      refuseByPlan(op, caller);
      if (judged && !keyed) {
        const paid = await this.authenticate(inv, { ...ask, reserve: true });
        charges = reserved(paid);
        refuseByGate(paid);
      }
      if (keyed && idempotency && 'key' in idempotency) {
        const fingerprint = requestFingerprint(op.name, inv.surface, inv.csv, parsed.data);
        const claim = await this.deps.idempotency.claim(
          caller.workspaceId,
          idempotency.key,
          fingerprint,
          inv.requestId,
        );
        if (claim.kind === 'replay') return replayed(claim, rateLimitHeaders(rate), caller);
        if (claim.kind === 'mismatch') throw idempotencyMismatch(idempotency.key);
        if (claim.kind === 'running') throw idempotencyRunning(idempotency.key);
        claimed = idempotency.key;
        const paid = await this.authenticate(inv, { ...ask, reserve: true });
        charges = reserved(paid);
        refuseByGate(paid);
      }

      const more = op.metered ? (op.credits?.(parsed.data) ?? 1) - 1 : 0;
      if (more > 0) {
        // Every check is awaited and every credit one took is kept in `charges` before any failure is thrown, so
        // that the refusal or error path releases them all.
        const asked = Array.from({ length: more }, () => this.authenticate(inv, { ...ask, reserve: true }));
        const rest = await Promise.allSettled(asked);
        charges = [...charges, ...rest.flatMap((r) => (r.status === 'fulfilled' ? reserved(r.value) : []))];
        for (const r of rest) {
          if (r.status === 'rejected') throw r.reason;
          refuseBatchByGate(r.value, more + 1);
        }
      }

      const early = inv.keepEarly !== undefined && charges.length === 1 && claimed === null;
      if (early) inv.keepEarly!(caller, charges[0]!);
      const result = await op.handle(parsed.data, this.context(inv, caller));
      // A charge kept early is the call's only one: a handler that served none of it failed instead.
      if (!early) charges = await this.refundUnbilled(inv.requestId, charges, result);
      const body = await envelope(op, result, inv.requestId, this.deps.services.dataset);
      const headers = { ...rateLimitHeaders(rate), ...fileHeaders(result) };
      return { ...success(body, result, headers, caller), charges, idempotencyKey: claimed };
    } catch (err) {
      rate ??= await this.currentWindow(caller);
      const refused = failed(this.deps.errors, {
        err,
        rate,
        caller,
        requestId: inv.requestId,
        log: ['operation failed', { operation: op.name }],
      });
      // A 404 is an answer and costs its credit (kept as it is sent); anything else is refunded now.
      if (err instanceof ApiError && err.status === 404) return { ...refused, charges, idempotencyKey: claimed };
      await this.deps.settlement.release(inv.requestId, charges, refused.status);
      if (claimed && caller) {
        const onError = (e: unknown): void => this.deps.errors.error(e, { request_id: inv.requestId }, 'freeing a key');
        await this.deps.idempotency.release(caller.workspaceId, claimed, inv.requestId, onError);
      }
      return refused;
    }
  }

  /** The charges an answer owes: those of the credits it says it does not (`unbilled`) are refunded now. */
  private async refundUnbilled(requestId: string, charges: number[], result: Result): Promise<number[]> {
    const unbilled = 'unbilled' in result ? (result.unbilled ?? 0) : 0;
    if (unbilled <= 0) return charges;
    const owed = charges.slice(0, Math.max(charges.length - unbilled, 0));
    await this.deps.settlement.release(requestId, charges.slice(owed.length), 200);
    return owed;
  }

  /**
   * Admits a request that runs no operation (MCP `initialize`, `tools/list`, `ping`, notifications):
   * the same key and surface checks, but no per-minute count and no credit. Its rate-limit headers
   * show the workspace's window as it stands.
   */
  async admit(inv: Admission): Promise<Outcome> {
    let caller: Caller | null = null;
    try {
      const gate = await this.authenticate(inv);
      caller = gate.caller;
      refuseSurface(gate);
      const rate = await this.deps.limiter.peek(workspaceWindow(caller.workspaceId), caller.perMinute);
      return success(null, null, rateLimitHeaders(rate), caller);
    } catch (err) {
      return failed(this.deps.errors, {
        err,
        rate: null,
        caller,
        requestId: inv.requestId,
        log: ['admitting a request failed', { surface: inv.surface }],
      });
    }
  }

  /**
   * An account route (the billing routes): authenticated like every call but for any plan's surfaces
   * (packs are sold to MCP-only plans too), counted in the workspace's window, never metered. `handle`
   * validates its own input and answers the `data` of a single-object envelope.
   */
  async account(inv: Omit<Admission, 'surface'>, handle: (caller: Caller) => Promise<unknown>): Promise<Outcome> {
    let caller: Caller | null = null;
    let rate: RateDecision | null = null;
    try {
      caller = (await this.authenticate({ ...inv, surface: 'rest' })).caller;
      rate = await this.countCall(caller);
      const data = await handle(caller);
      return success({ data, meta: { request_id: inv.requestId } }, null, rateLimitHeaders(rate), caller);
    } catch (err) {
      rate ??= await this.currentWindow(caller);
      return failed(this.deps.errors, {
        err,
        rate,
        caller,
        requestId: inv.requestId,
        log: ['account request failed', {}],
      });
    }
  }

  /**
   * The window for an answer given before the rate stage (401, a surface refusal), read without
   * counting: the caller's workspace window as its next request will meet it or, with no caller, the
   * keyless allowance of the client's address, which unauthenticated answers never consume.
   */
  async currentWindow(caller: Caller | null): Promise<RateDecision> {
    return caller
      ? this.deps.limiter.peek(workspaceWindow(caller.workspaceId), caller.perMinute)
      : openWindow(KEYLESS_PER_MINUTE, this.deps.clock.now().getTime());
  }

  /** The key's check in the database: who calls, whether the plan has the surface, and the reservation asked for. */
  private async authenticate(
    inv: Admission,
    ask: { reserve?: boolean; leadFeed?: boolean; csv?: boolean } = {},
  ): Promise<GateResult & { caller: Caller }> {
    let credential: Credential;
    if (inv.member) credential = { member: inv.member };
    else {
      const creds = presentedKey(inv.headers);
      if (creds.kind !== 'key') throw unauthorized();
      credential = { key: creds.key };
    }
    const gate = await this.deps.gate.check({
      credential,
      surface: inv.surface,
      reserve: ask.reserve ?? false,
      leadFeed: ask.leadFeed ?? false,
      csv: ask.csv ?? false,
      requestId: inv.requestId,
    });
    const { caller } = gate;
    if (gate.outcome === 'unauthorized' || !caller) throw unauthorized();
    return { ...gate, caller };
  }

  /** Counts a call in its workspace's window; a full window refuses it. */
  private async countCall(caller: Caller): Promise<RateDecision> {
    const rate = await this.deps.limiter.hit(workspaceWindow(caller.workspaceId), caller.perMinute);
    if (!rate.allowed) throw perMinuteRefusal(rate);
    return rate;
  }

  private context(inv: Invocation, caller: Caller | null) {
    const { requestId, clientIp } = inv;
    const given = readIdempotencyKey(inv.idempotencyKey);
    const idempotencyKey = given && 'key' in given ? given.key : null;
    return { requestId, caller, now: this.deps.clock.now(), services: this.deps.services, clientIp, idempotencyKey };
  }
}
