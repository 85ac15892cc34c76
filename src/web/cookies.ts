// The web app's cookies. The session cookie carries a random token (its hash is the session's key in
// PostgreSQL); the `csrf` cookie carries the secret that CSRF tokens of signed-out forms (sign-up,
// login, reset) are made from. Both httpOnly and SameSite=Lax; Secure, with the `__Host-` prefix (no
// Domain, path /), whenever the service is reached over TLS or runs in production. docs/web.md, "Sessions".
import type { FastifyReply, FastifyRequest } from 'fastify';
import { parseCookie, stringifySetCookie } from 'cookie';

export interface CookieNames {
  readonly session: string;
  readonly csrf: string;
  readonly secure: boolean;
}

export function cookieNames(secure: boolean): CookieNames {
  const prefix = secure ? '__Host-' : '';
  return { session: `${prefix}rl_session`, csrf: `${prefix}rl_csrf`, secure };
}

/** The cookies of a request's header (parsed here: the API's routes carry no cookie plugin). */
export const requestCookies = (req: FastifyRequest): Record<string, string | undefined> =>
  req.headers.cookie ? parseCookie(req.headers.cookie) : {};

export function setCookie(
  reply: FastifyReply,
  names: CookieNames,
  name: string,
  value: string,
  expires: Date | null,
): void {
  reply.header(
    'set-cookie',
    stringifySetCookie({
      name,
      value,
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure: names.secure,
      ...(expires ? { expires } : {}),
    }),
  );
}

export const clearCookie = (reply: FastifyReply, names: CookieNames, name: string): void =>
  setCookie(reply, names, name, '', new Date(0));
