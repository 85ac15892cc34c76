// The signatures of a delivery (docs/webhooks.md, "Verifying a delivery"): Standard Webhooks' `webhook-id`,
// `webhook-timestamp` and `webhook-signature` (`v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, signed by the
// `standardwebhooks` package, so any of its verifiers accepts it), with one signature per live secret while a
// rotation's old secret still holds; and `X-SVC-Signature`, the contract's hex HMAC-SHA256 of the body alone (no
// timestamp: a captured delivery verifies forever, so receivers should check `webhook-signature`).
import { createHmac, randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** A rotated-out secret still signs this long, so receivers can move to the new one without failing a delivery. */
export const ROTATION_OVERLAP_HOURS = 24;

export interface Secrets {
  readonly current: string;
  /** The secret before the last rotation, while it still holds. */
  readonly previous: string | null;
}

export function signatureHeaders(secrets: Secrets, messageId: string, body: string, at: Date): Record<string, string> {
  const signatures = [secrets.current, ...(secrets.previous ? [secrets.previous] : [])].map((s) =>
    new Webhook(s).sign(messageId, at, body),
  );
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
    'x-svc-signature': createHmac('sha256', secrets.current).update(body).digest('hex'),
  };
}

/** A new endpoint secret, as Standard Webhooks writes them: `whsec_` and 32 random bytes in base64, shown once. */
export const newSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;
