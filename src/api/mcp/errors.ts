// JSON-RPC errors of the tool transport (docs/contract.md, "MCP"):
// a refused call's REST error in JSON-RPC form, and the error frames the transport answers itself.
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { ApiError } from '../errors.js';

export const RPC_ERROR = {
  parse: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internal: -32603,
  unauthorized: -32001,
  forbidden: -32003,
  outOfCredits: -32004,
  conflict: -32009,
  rateLimited: -32029,
} as const;

/**
 * An error a request handler throws. The SDK answers with its code, message and data as they are
 * (its own McpError would prefix the message with "MCP error <code>:").
 */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data: Record<string, unknown>,
  ) {
    super(message);
  }
}

function rpcCode(err: ApiError): number {
  switch (err.code) {
    case 'unauthorized':
      return RPC_ERROR.unauthorized;
    case 'rest_disabled':
    case 'mcp_disabled':
    case 'forbidden':
      return RPC_ERROR.forbidden;
    case 'payment_required':
      return RPC_ERROR.outOfCredits;
    case 'rate_limited':
      // A used-up monthly quota carries the balance: it is out of credits until the next cycle.
      // The per-minute window is the rate limit proper.
      return err.extra.creditBalance === undefined ? RPC_ERROR.rateLimited : RPC_ERROR.outOfCredits;
    case 'bad_request':
      return RPC_ERROR.invalidParams;
    case 'conflict':
      return RPC_ERROR.conflict;
    default:
      return RPC_ERROR.internal;
  }
}

/** A refused call as a JSON-RPC error: the REST code, message, details, balance and delay in `data`. */
export function fromApiError(err: ApiError, requestId: string): RpcError {
  const data: Record<string, unknown> = { code: err.code, request_id: requestId };
  if (err.extra.details) data.details = err.extra.details;
  if (err.extra.creditBalance !== undefined) data.credit_balance = err.extra.creditBalance;
  if (err.extra.retryAfter !== undefined) data.retry_after = err.extra.retryAfter;
  return new RpcError(rpcCode(err), err.message, data);
}

/** A JSON-RPC error response; `id` is null when the request's id is unknown (JSON-RPC 2.0, 5.1). */
export interface ErrorFrame {
  jsonrpc: '2.0';
  id: RequestId | null;
  error: { code: number; message: string; data?: unknown };
}

export const errorFrame = (id: RequestId | null, err: RpcError): ErrorFrame => ({
  jsonrpc: '2.0',
  id,
  error: { code: err.code, message: err.message, data: err.data },
});

/** Every error leaving the transport names the request, whoever raised it (the SDK's own included). */
export function withRequestId<F extends { error: { data?: unknown } }>(frame: F, requestId: string): F {
  const data = frame.error.data;
  const named =
    data !== null && typeof data === 'object' && !Array.isArray(data)
      ? { ...(data as Record<string, unknown>), request_id: requestId }
      : { request_id: requestId, ...(data === undefined ? {} : { detail: data }) };
  return { ...frame, error: { ...frame.error, data: named } };
}
