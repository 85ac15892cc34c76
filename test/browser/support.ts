// What the browser tests run on: Debian's Chromium driven by playwright-core, a real SMTP server
// (smtp-server) receiving the service's mails, and the application listening on a loopback port.
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { chromium, type Browser, type Page } from 'playwright-core';
import { SMTPServer } from 'smtp-server';
import { projectRoot } from '../../src/config/paths.js';
import type { ChildProcess } from 'node:child_process';
import type { PlanSlug } from '../../src/accounts/catalog.js';
import { setPlan } from '../../src/accounts/workspaces.js';
import { PEPPER, testApp, type TestApp } from '../support/app.js';
import { serverProcess } from '../support/server-process.js';

const CHROMIUM = '/usr/bin/chromium';

/** Why the browser tests cannot run here, or null. On CI (CI set) .ci/run installs Chromium: missing, it fails. */
export function browserUnavailable(): string | null {
  if (existsSync(CHROMIUM)) return null;
  return `${CHROMIUM} not found: install Debian's chromium (apt-get install -y chromium) to run the browser tests`;
}

/** Where each run's screenshots go (git-ignored), to look at. */
const SCREENSHOTS = path.join(projectRoot, 'test-results', 'screenshots');

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

interface ReceivedMail {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
}

/** A real SMTP server on loopback that keeps every message it receives, parsed. */
class MailCatcher {
  readonly received: ReceivedMail[] = [];
  private readonly server: SMTPServer;
  private waiters: Array<() => void> = [];

  private constructor(readonly port: number) {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData: (stream, _session, callback) => {
        simpleParser(stream)
          .then((mail) => {
            const to = Array.isArray(mail.to) ? mail.to[0] : mail.to;
            this.received.push({ to: to?.value[0]?.address ?? '', subject: mail.subject ?? '', text: mail.text ?? '' });
            for (const w of this.waiters.splice(0)) w();
            callback();
          })
          .catch(callback);
      },
    });
  }

  static async start(): Promise<MailCatcher> {
    const catcher = new MailCatcher(await freePort());
    await new Promise<void>((resolve) => catcher.server.listen(catcher.port, '127.0.0.1', resolve));
    return catcher;
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  /** The first mail to `to` whose subject matches, waiting for it (up to 10 s). */
  async mail(to: string, subject: RegExp): Promise<ReceivedMail> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const found = this.received.find((m) => m.to === to && subject.test(m.subject));
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no mail to ${to} matching ${subject} within 10 s`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

export interface Site {
  readonly t: TestApp;
  readonly base: string;
  readonly mail: MailCatcher;
  readonly browser: Browser;
  /** Console errors, failed requests and page errors seen so far (a CSP refusal is one): none is expected. */
  readonly problems: string[];
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

/** The service listening on loopback with mail to a real SMTP server, and a headless Chromium. */
export async function openSite(env: Record<string, string> = {}): Promise<Site> {
  const mail = await MailCatcher.start();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  // A clock at the real time: cookies' expiry dates are read by a real browser.
  const t = await testApp({
    now: new Date().toISOString(),
    env: { SMTP_URL: mail.url, PUBLIC_BASE_URL: base, ...env },
  });
  await t.app.http.listen({ host: '127.0.0.1', port });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-quic',
    ],
  });
  await mkdir(SCREENSHOTS, { recursive: true });
  const problems: string[] = [];
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  return {
    t,
    base,
    mail,
    browser,
    problems,
    async newPage() {
      const page = await context.newPage();
      page.on('console', (m) => {
        if (m.type() === 'error') problems.push(`console: ${m.text()}`);
      });
      page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
      page.on('requestfailed', (r) => {
        // A request cut short because the test moved to the next page is not the page's fault.
        const error = r.failure()?.errorText ?? '';
        if (error !== 'net::ERR_ABORTED') problems.push(`request failed: ${r.url()} ${error}`);
      });
      return page;
    },
    async close() {
      await browser.close();
      await t.close();
      await mail.close();
    },
  };
}

/** A full-page screenshot under test-results/screenshots. */
export const screenshot = (page: Page, name: string): Promise<Buffer> =>
  page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });

/** Signs up through the forms and the verification mail; returns the first live key, shown once. */
export async function signUpInBrowser(site: Site, page: Page, email: string, password: string): Promise<string> {
  await page.goto(`${site.base}/signup`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Create account' }).click();
  const mail = await site.mail.mail(email, /Verify/);
  const link = /https?:\/\/\S+\/verify\?token=\S+/.exec(mail.text)?.[0];
  if (!link?.startsWith(site.base)) throw new Error(`no verification link in: ${mail.text}`);
  await page.goto(link);
  await page.getByRole('button', { name: 'Verify and continue' }).click();
  return page.locator('#new-key').innerText();
}

/** Signs up through the browser (signUpInBrowser) and moves the new workspace to `plan`: its id and first key. */
export async function signedUpOnPlan(
  site: Site,
  page: Page,
  email: string,
  plan: PlanSlug,
): Promise<{ workspace: string; key: string }> {
  const key = await signUpInBrowser(site, page, email, 'correct horse battery');
  const { rows } = await site.t.db.pool.query<{ id: string }>(
    'SELECT m.workspace_id AS id FROM workspace_members m JOIN users u ON u.id = m.user_id WHERE u.email = $1',
    [email],
  );
  await setPlan(site.t.db.pool, rows[0]!.id, plan, site.t.clock);
  return { workspace: rows[0]!.id, key };
}

/**
 * A `registry worker` process on the site's database, where match jobs and exports run in production; `stop` ends
 * it (a no-op once it has exited).
 */
export async function workerProcess(
  site: Site,
  dataDir: string,
): Promise<{ child: ChildProcess; stop(): Promise<void> }> {
  const child = await serverProcess(
    { DATABASE_URL: site.t.db.url, DATA_DIR: dataDir, API_KEY_PEPPER: PEPPER, WEBHOOKS_DELIVERY: '0' },
    { command: 'worker' },
  );
  return {
    child,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}
