// The signatures of a delivery (docs/webhooks.md, "Verifying a delivery"): `X-SVC-Signature`, the spec's hex
// HMAC-SHA256 of the raw body, and `X-SVC-Signature-V2: t=<unix seconds>,v1=<hex HMAC of "t.body">` with
// `X-SVC-Timestamp`, which lets a receiver refuse an old delivery replayed at it.
import { createHmac, randomBytes } from 'node:crypto';

const hmac = (secret: string, data: string): string => createHmac('sha256', secret).update(data).digest('hex');

export function signatureHeaders(secret: string, body: string, at: Date): Record<string, string> {
  const t = Math.floor(at.getTime() / 1000);
  return {
    'x-svc-signature': hmac(secret, body),
    'x-svc-timestamp': String(t),
    'x-svc-signature-v2': `t=${t},v1=${hmac(secret, `${t}.${body}`)}`,
  };
}

/** A new endpoint secret: 32 random bytes, shown once. */
export const newSecret = (): string => `whsec_${randomBytes(32).toString('hex')}`;
