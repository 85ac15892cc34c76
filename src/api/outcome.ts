// What the pipeline answers a call with (src/api/pipeline.ts), before a surface writes it: the status and body, the
// handler's result for other renderings, the credit it costs (kept as it is sent, src/api/delivery.ts), and an
// answer given before under the same Idempotency-Key.
import type { Caller, GateResult } from '../accounts/gate.js';
import type { ApiError } from './errors.js';
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
