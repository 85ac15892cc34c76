// A browser without a browser, for the web app's tests: cookies kept between requests (through
// Fastify's inject), the CSRF token read from the last form, and the mails the service wrote under
// DATA_DIR/mail (no SMTP_URL) read back as text.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { simpleParser } from 'mailparser';
import type { TestApp } from './app.js';

export class WebClient {
  readonly cookies = new Map<string, string>();
  /** The CSRF token of the last page that had a form. */
  csrf = '';

  constructor(
    private readonly t: TestApp,
    readonly ip = '127.0.0.1',
  ) {}

  private remember(res: LightMyRequestResponse): LightMyRequestResponse {
    const set = res.headers['set-cookie'];
    for (const c of Array.isArray(set) ? set : set ? [set] : []) {
      const [pair, ...attrs] = c.split(';');
      const [name, value] = pair!.split('=') as [string, string];
      const expired = attrs.some((a) => /expires=Thu, 01 Jan 1970/i.test(a));
      if (expired || value === '') this.cookies.delete(name.trim());
      else this.cookies.set(name.trim(), value);
    }
    const token = /name="_csrf" value="([^"]+)"/.exec(res.body)?.[1] ?? /data-csrf="([^"]+)"/.exec(res.body)?.[1];
    if (token) this.csrf = token;
    return res;
  }

  get cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async get(url: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
    return this.remember(
      await this.t.app.http.inject({
        method: 'GET',
        url,
        remoteAddress: this.ip,
        headers: { cookie: this.cookieHeader, ...headers },
      }),
    );
  }

  /** Posts a form with this client's CSRF token (unless the fields name one). */
  async post(url: string, fields: Record<string, string | string[]> = {}): Promise<LightMyRequestResponse> {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries({ _csrf: this.csrf, ...fields }))
      for (const one of Array.isArray(v) ? v : [v]) body.append(k, one);
    return this.remember(
      await this.t.app.http.inject({
        method: 'POST',
        url,
        remoteAddress: this.ip,
        headers: { cookie: this.cookieHeader, 'content-type': 'application/x-www-form-urlencoded' },
        payload: body.toString(),
      }),
    );
  }

  /** Signs up and follows the verification mail: the welcome page. */
  async verifiedSignUp(email: string, password = 'correct horse battery'): Promise<LightMyRequestResponse> {
    await this.get('/signup');
    const res = await this.post('/signup', { email, password });
    if (res.statusCode !== 200) throw new Error(`sign-up answered ${res.statusCode}: ${res.body.slice(0, 300)}`);
    const token = linkToken(await lastMail(this.t, email, /Verify/), 'verify');
    await this.get(`/verify?token=${token}`);
    return this.post('/verify', { token });
  }

  /** Signs up, follows the verification mail, and returns the first live key shown once. */
  async signUp(email: string, password = 'correct horse battery'): Promise<string> {
    const welcome = await this.verifiedSignUp(email, password);
    const key = /id="new-key">(svc_live_\w+)</.exec(welcome.body)?.[1];
    if (!key) throw new Error(`no key on the welcome page: ${welcome.body.slice(0, 300)}`);
    return key;
  }

  async logIn(email: string, password = 'correct horse battery'): Promise<LightMyRequestResponse> {
    await this.get('/login');
    return this.post('/login', { email, password });
  }
}

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/** Every mail the service wrote under DATA_DIR/mail, oldest first. */
export async function mails(t: TestApp): Promise<Mail[]> {
  const dir = path.join(t.config.dataDir, 'mail');
  const files = (await readdir(dir).catch(() => [] as string[])).sort();
  const out: Mail[] = [];
  for (const f of files) {
    const m = await simpleParser(await readFile(path.join(dir, f)));
    const to = Array.isArray(m.to) ? m.to[0] : m.to;
    out.push({ to: to?.value[0]?.address ?? '', subject: m.subject ?? '', text: m.text ?? '' });
  }
  return out;
}

export async function lastMail(t: TestApp, to: string, subject: RegExp): Promise<Mail> {
  const found = (await mails(t)).filter((m) => m.to === to && subject.test(m.subject)).at(-1);
  if (!found) throw new Error(`no mail to ${to} matching ${subject}`);
  return found;
}

/** The token of a mailed link (`/verify?token=`, `/reset?token=`, `/invite/`). */
export function linkToken(mail: Mail, kind: 'verify' | 'reset' | 'invite'): string {
  const re = kind === 'invite' ? /\/invite\/([A-Za-z0-9_-]{43})/ : new RegExp(`/${kind}\\?token=([A-Za-z0-9_-]{43})`);
  const m = re.exec(mail.text);
  if (!m) throw new Error(`no ${kind} link in: ${mail.text}`);
  return m[1]!;
}

export async function count(t: TestApp, table: string): Promise<number> {
  const { rows } = await t.db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`);
  return rows[0]!.n;
}
