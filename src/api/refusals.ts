// The refusals the pipeline's stages answer with, worded once: a full window, a plan without the
// surface, and what the gate decided about the plan and the credits. docs/contract.md, "Errors".
import type { z } from 'zod';
import { PLAN_SLUGS, PLANS } from '../accounts/catalog.js';
import type { Caller, GateResult } from '../accounts/gate.js';
import type { RateDecision } from '../ratelimit/index.js';
import { ApiError, badRequest, type Details } from './errors.js';

/** The 429 of a full per-minute window. */
export function perMinuteRefusal(rate: RateDecision): ApiError {
  const message = `Rate limit of ${rate.limit} requests per minute exceeded. Retry in ${rate.resetSeconds} seconds.`;
  return new ApiError('rate_limited', message, { retryAfter: rate.resetSeconds });
}

export function surfaceRefusal(outcome: 'rest_disabled' | 'mcp_disabled'): ApiError {
  return outcome === 'rest_disabled'
    ? new ApiError(
        'rest_disabled',
        'Your plan does not include the REST API; use the MCP endpoint or upgrade your plan.',
      )
    : new ApiError('mcp_disabled', 'Your plan does not include MCP access; use the REST API or upgrade your plan.');
}

/** A plan without the call's surface is refused (after authentication: the refusal names the caller's window). */
export function refuseSurface(gate: GateResult): void {
  if (gate.outcome === 'rest_disabled' || gate.outcome === 'mcp_disabled') throw surfaceRefusal(gate.outcome);
}

/** The plans with bulk snapshots, by name, from the catalog ("Lead Feed and Enterprise"). */
export const snapshotPlans = (): string =>
  PLAN_SLUGS.filter((s) => PLANS[s].snapshots)
    .map((s) => PLANS[s].name)
    .join(' and ');

/** The 403 of an operation the caller's plan does not have, judged from the catalog (nothing reserved yet). */
export function refuseByPlan(op: { readonly snapshots?: boolean }, caller: Caller): void {
  if (op.snapshots && !PLANS[caller.plan].snapshots)
    throw new ApiError(
      'forbidden',
      `Bulk snapshots come with the ${snapshotPlans()} plans; every plan reads the change feed at GET /v1/changes.`,
    );
}

const FEATURE_MESSAGE =
  'Your plan does not include this feature ' +
  '(the lead feed needs the Lead Feed or Enterprise plan; CSV needs Pro or above).';
const TRIAL_USED_UP = 'Your free trial credits are used up. Upgrade to a paid plan or buy a credit pack to continue.';
const CANCELLED_USED_UP =
  'Your subscription is cancelled and its credits are used up. ' +
  'Upgrade to a paid plan again or buy a credit pack to continue.';

/** Throws the refusal of a gate that did not admit the call to its operation (plan gate, credits). */
export function refuseByGate(gate: GateResult): void {
  const creditBalance = gate.creditBalance ?? 0;
  switch (gate.outcome) {
    case 'forbidden':
      throw new ApiError('forbidden', FEATURE_MESSAGE);
    case 'payment_required':
      // The trial, or a cancelled subscription (no new cycle will bring credits back).
      throw new ApiError('payment_required', gate.caller?.plan === 'free_trial' ? TRIAL_USED_UP : CANCELLED_USED_UP, {
        creditBalance,
      });
    case 'cap_reached':
      // The owner's cap stops overage only: plan and pack credits are spent before overage, so none is left.
      throw new ApiError(
        'payment_required',
        "Your workspace's monthly spending cap on overage is reached and your plan and pack credits are used " +
          'up. The owner can raise the cap or buy a credit pack on the billing page; overage resumes with the ' +
          `next month in ${gate.retryAfter} seconds.`,
        { creditBalance },
      );
    case 'quota_exhausted':
      throw new ApiError(
        'rate_limited',
        `Monthly credit quota exhausted. It renews with the next billing cycle in ${gate.retryAfter} seconds.`,
        { retryAfter: gate.retryAfter ?? 0, creditBalance },
      );
    default:
  }
}

/**
 * The gate's refusal of a credit past a call's first (a batch of `credits` queries): the same refusal, saying
 * that the call is served whole or not at all, so that a balance short of it is not read as an empty one.
 */
export function refuseBatchByGate(gate: GateResult, credits: number): void {
  try {
    refuseByGate(gate);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const whole =
      `This call costs ${credits} credits (one per query) and the balance does not cover them all: ` +
      'send fewer queries. ';
    throw new ApiError(err.code, whole + err.message, err.extra);
  }
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

/** The parsed value, or the 400 naming each parameter at fault. */
export function parseOrRefuse<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw badRequest(validationDetails(parsed.error));
  return parsed.data;
}
