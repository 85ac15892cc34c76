// The error envelope of the spec and the one exception type every stage throws to produce it.

export const ERROR_STATUS = {
  bad_request: 400,
  unauthorized: 401,
  payment_required: 402,
  forbidden: 403,
  rest_disabled: 403,
  mcp_disabled: 403,
  not_found: 404,
  conflict: 409,
  cursor_expired: 410,
  rate_limited: 429,
  internal_error: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** Per-parameter reasons of a 400, named by parameter. */
export type Details = Record<string, string>;

export interface ErrorBody {
  error: { code: ErrorCode; message: string; request_id: string; details?: Details };
}

/** docs/contract.md, "Authentication": one body for every authentication failure. */
const UNAUTHORIZED_MESSAGE = 'Invalid or missing API key.';

export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: {
      details?: Details;
      /** Seconds, for 429s: sent as Retry-After. */
      retryAfter?: number;
      /** The balance, for 402s (the MCP error carries it). */
      creditBalance?: number;
    } = {},
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
  }

  body(requestId: string): ErrorBody {
    const error: ErrorBody['error'] = { code: this.code, message: this.message, request_id: requestId };
    if (this.extra.details) error.details = this.extra.details;
    return { error };
  }
}

export const unauthorized = (): ApiError => new ApiError('unauthorized', UNAUTHORIZED_MESSAGE);
export const internalError = (): ApiError =>
  new ApiError('internal_error', 'Internal server error. Retry with backoff.');
/** A read stopped by the query timeout: the service is fine, this query is too broad for now. */
export const queryTimedOut = (): ApiError =>
  new ApiError(
    'internal_error',
    'The query took too long and was stopped. Retry later, or narrow it (more characters, a filter).',
  );
export const badRequest = (details: Details, message = 'Invalid request parameters.'): ApiError =>
  new ApiError('bad_request', message, { details });
