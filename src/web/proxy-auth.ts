// The session on the same-origin proxy (/api/v1 only; never /v1 or /mcp): a request that presents no
// key, carries the session cookie, and the session's CSRF token in `X-CSRF-Token` (GETs included: each
// call spends a credit) is a call of that member on the workspace the session shows. Anything less is
// a caller without credentials, answered 401 like any. docs/web.md, "The playground and the proxy".
import type { FastifyRequest } from 'fastify';
import type pg from 'pg';
import { presentedKey } from '../accounts/keys.js';
import type { SignedInMember } from '../accounts/gate.js';
import { csrfTokens, loadSession } from '../accounts/sessions.js';
import { isTokenShaped } from '../accounts/tokens.js';
import type { Clock } from '../clock.js';
import { requestCookies, type CookieNames } from './cookies.js';

const PROXY_PREFIX = '/api/v1/';

export function proxyAuth(deps: {
  pool: pg.Pool;
  clock: Clock;
  cookies: CookieNames;
}): (req: FastifyRequest) => Promise<SignedInMember | null> {
  return async (req) => {
    if (!req.url.startsWith(PROXY_PREFIX)) return null;
    if (presentedKey(req.headers).kind !== 'none') return null;
    const token = requestCookies(req)[deps.cookies.session];
    const csrf = req.headers['x-csrf-token'];
    if (!isTokenShaped(token) || typeof csrf !== 'string' || csrf.length > 200) return null;
    const session = await loadSession(deps.pool, token, deps.clock.now());
    if (!session?.workspaceId || !session.role || !csrfTokens.verify(session.csrfSecret, csrf)) return null;
    return { workspaceId: session.workspaceId, userId: session.userId, role: session.role };
  };
}
