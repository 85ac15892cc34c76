// What the pipeline answers a call with (src/api/pipeline.ts), before a surface writes it: the status and body, the
// handler's result for other renderings, the credit it costs (kept as it is sent, src/api/delivery.ts), an
// answer given before under the same Idempotency-Key, and the error envelope of a call that failed.
import type { Caller, GateResult } from '../accounts/gate.js';
import { isQueryCanceled } from '../db/pool.js';
import { rateLimitHeaders, type RateDecision } from '../ratelimit/index.js';
import type { ErrorLog } from './error-log.js';
import { ApiError, internalError, queryTimedOut } from './errors.js';
import type { FileResult, ListResult, SingleResult, StreamResult } from './operation.js';

export type Result = ListResult | SingleResult | FileResult | StreamResult;

export interface Outcome {
  readonly status: number;
  /** The full JSON body (envelope included), or the error envelope. */
  readonly body: unknown;
  /** The handler's result on success, for renderings other than JSON (CSV). */
  readonly result: Result | null;
  readonly headers: Record<string, string>;
  readonly caller: Caller | null;
  /** The ledger entries of the credit this answer costs, kept when it is sent (src/api/delivery.ts). */
  readonly charges: readonly number[];
  /** The Idempotency-Key this answer is given under (its copy is kept with its charge). */
  readonly idempotencyKey: string | null;
  /** An answer given before under the same Idempotency-Key, again (free): its type and body as first sent. */
  readonly replay: { readonly type: string; readonly body: string } | null;
  readonly error: ApiError | null;
}

export const success = (
  body: unknown,
  result: Result | null,
  headers: Record<string, string>,
  caller: Caller | null,
): Outcome => ({
  status: 200,
  body,
  result,
  headers,
  caller,
  charges: [],
  idempotencyKey: null,
  replay: null,
  error: null,
});

export const reserved = (gate: GateResult): number[] => (gate.reservation === null ? [] : [gate.reservation]);

/** The answer given before under the key, free, marked as such (`Idempotent-Replayed`). */
export function replayed(
  claim: { status: number; type: string; body: string },
  headers: Record<string, string>,
  caller: Caller,
): Outcome {
  const body = claim.type.startsWith('application/json') ? (JSON.parse(claim.body) as unknown) : claim.body;
  return {
    ...success(body, null, { ...headers, 'idempotent-replayed': 'true' }, caller),
    status: claim.status,
    replay: { type: claim.type, body: claim.body },
  };
}

export function fileHeaders(result: Result): Record<string, string> {
  if (!('file' in result)) return {};
  return {
    'content-type': result.file.contentType,
    'content-disposition': `attachment; filename="${result.file.filename}"`,
  };
}

/** A stage's failure on its way to the answer: the window to show and who called, when known. */
export interface Failed {
  readonly err: unknown;
  readonly rate: RateDecision | null;
  readonly caller: Caller | null;
  readonly requestId: string;
  /** The log line of an unexpected error, and what it names. */
  readonly log: readonly [message: string, fields: Record<string, unknown>];
}

/** The answer to a failed call: its error in the envelope (an unexpected one logged, and answered 500). */
export function failed(errors: ErrorLog, f: Failed): Outcome {
  const { err } = f;
  const apiError = err instanceof ApiError ? err : isQueryCanceled(err) ? queryTimedOut() : internalError();
  if (!(err instanceof ApiError)) errors.error(err, { ...f.log[1], request_id: f.requestId }, f.log[0]);
  const headers = f.rate ? rateLimitHeaders(f.rate) : {};
  if (apiError.extra.retryAfter !== undefined) headers['retry-after'] = String(apiError.extra.retryAfter);
  return {
    status: apiError.status,
    body: apiError.body(f.requestId),
    result: null,
    headers,
    caller: f.caller,
    charges: [],
    idempotencyKey: null,
    replay: null,
    error: apiError,
  };
}
