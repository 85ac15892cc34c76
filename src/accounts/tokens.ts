// Random tokens for links and cookies: 256 bits from a CSPRNG, base64url. Only their SHA-256 is stored,
// so a copy of the database opens no session and follows no mailed link.
import { createHash, randomBytes } from 'node:crypto';

export const newToken = (): string => randomBytes(32).toString('base64url');

export const tokenHash = (token: string): Buffer => createHash('sha256').update(token).digest();

/** The shape of a token we issued; anything else is not looked up. */
export const isTokenShaped = (s: unknown): s is string => typeof s === 'string' && /^[A-Za-z0-9_-]{43}$/.test(s);
