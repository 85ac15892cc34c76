// Idempotency keys on the API's side (docs/contract.md, "Idempotency keys"): the key a request presents (the
// `Idempotency-Key` header, or an MCP call's `_meta`), what makes two requests the same one, and the refusals.
import { createHash } from 'node:crypto';
import stableStringify from 'safe-stable-stringify';
import { ApiError } from './errors.js';

/** The header (and the MCP `_meta` field) that carries a key. */
export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const IDEMPOTENCY_META = 'idempotency_key';
/** Stripe's limit: long enough for a UUID or a client's own composite key, short enough to index. */
const MAX_KEY_LENGTH = 255;
/** Printable ASCII without spaces at the ends: what survives every HTTP stack unchanged. */
const KEY_PATTERN = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

/** A present key as given, or the 400 reason it is refused. */
export function readIdempotencyKey(value: unknown): { key: string } | { invalid: string } | null {
  if (value === undefined) return null;
  if (typeof value !== 'string') return { invalid: 'must be one text value' };
  if (value.length > MAX_KEY_LENGTH) return { invalid: `must be at most ${MAX_KEY_LENGTH} characters` };
  if (!KEY_PATTERN.test(value)) return { invalid: 'must be printable ASCII, not blank' };
  return { key: value };
}

/** The request a key stands for: the operation, surface, format and validated parameters (defaults applied). */
export function requestFingerprint(operation: string, surface: string, csv: boolean, params: unknown): string {
  return createHash('sha256')
    .update(stableStringify({ operation, surface, csv, params }) ?? '')
    .digest('base64url');
}

export const idempotencyMismatch = (key: string): ApiError =>
  new ApiError(
    'conflict',
    `Idempotency-Key ${JSON.stringify(key)} was used with another request in the last 24 hours; use a new key.`,
  );

export const idempotencyRunning = (key: string): ApiError =>
  new ApiError(
    'conflict',
    `A request with Idempotency-Key ${JSON.stringify(key)} is still being answered; retry when it has finished.`,
    { retryAfter: 1 },
  );
