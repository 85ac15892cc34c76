// Monitoring end to end (docs/webhooks.md): watches and saved searches, events written by the importer in
// its transaction, signed deliveries to a real HTTP receiver on loopback, retries while it is down (same
// ids, none lost), and the refusals of bad input.
import { OPERATOR } from '../src/accounts/audit.js';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { createWorkspace } from '../src/accounts/workspaces.js';
import { ManualClock } from '../src/clock.js';
import { loadConfig } from '../src/config/index.js';
import { isPrivateAddress, resolveTarget } from '../src/monitoring/address.js';
import { backoffSeconds, deliverDue, purgeDeliveryLog } from '../src/monitoring/delivery.js';
import {
  addSavedSearch,
  addWatch,
  changeEndpoint,
  createEndpoint,
  deleteEndpoint,
  listEndpoints,
  Refusal,
} from '../src/monitoring/store.js';
import { listEvents, replayEvent, sendTestEvent } from '../src/monitoring/event-log.js';
import { newSecret } from '../src/monitoring/signature.js';
import { importRegistry } from '../src/main/importer.js';
import { testDatabase, type TestDatabase } from './support/database.js';
import { corporate, fileOf } from './support/records.js';

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver on loopback that can be stopped and started again on the same port. */
class Receiver {
  readonly got: Received[] = [];
  private server = this.make();
  port = 0;
  private make(): http.Server {
    return http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.got.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      });
    });
  }
  async start(): Promise<void> {
    this.server = this.make();
    await new Promise<void>((resolve) => this.server.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }
  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
  events(): Array<{ id: string; type: string; data: Record<string, unknown> }> {
    return this.got.map((r) => JSON.parse(r.body) as { id: string; type: string; data: Record<string, unknown> });
  }
}

const SETTINGS = { allowPrivate: true, retrySeconds: 0.2 };
const hmac = (secret: string, data: string): string => createHmac('sha256', secret).update(data).digest('hex');

let db: TestDatabase;
let dir: string;
const receiver = new Receiver();

before(async () => {
  db = await testDatabase();
  dir = await mkdtemp(path.join(tmpdir(), 'rl-webhooks-'));
  await receiver.start();
});
after(async () => {
  await receiver.stop();
  await db.close();
  await rm(dir, { recursive: true, force: true });
});

async function daily(name: string, lines: Buffer[]): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, fileOf(lines));
  return file;
}

const eventCount = async (): Promise<number> =>
  (await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM monitoring_events')).rows[0]!.n;

/** Delivers until nothing is pending (retries wait their backoff), or gives up after `ms`. */
async function deliverAll(ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    await deliverDue(db.pool, SETTINGS, null);
    const { rows } = await db.pool.query(`SELECT 1 FROM webhook_deliveries WHERE status = 'pending'`);
    if (rows.length === 0) return;
    if (Date.now() > end) assert.fail('deliveries still pending');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('monitoring', () => {
  let workspace: string;
  let secret: string;

  it('delivers entity.updated, entity.created and saved_search.match, signed as Standard Webhooks', async () => {
    await importRegistry(db.pool, [
      await daily('20261001c.txt', [
        corporate({ doc: 'L26000000001', name: 'ACME WIDGETS LLC', city: 'MIAMI', fileDate: '09282026' }),
        corporate({ doc: 'L26000000002', name: 'ORANGE GROVE LLC', city: 'TAMPA', fileDate: '09282026' }),
      ]),
    ]);
    assert.equal(await eventCount(), 0, 'nothing watched: no events');
    const clock = new ManualClock('2026-10-01T12:00:00Z');
    workspace = (await createWorkspace(db.pool, { plan: 'growth' }, 'pepper', clock)).workspace.id;
    await addWatch(db.pool, workspace, 'growth', 'L26000000001');
    const search = await addSavedSearch(db.pool, workspace, 'growth', 'Orlando bakeries', {
      name: 'bakery',
      principal_city: 'ORLANDO',
    });
    const endpoint = await createEndpoint(
      db.pool,
      workspace,
      'growth',
      `http://127.0.0.1:${receiver.port}/hook`,
      ['entity.created', 'entity.updated', 'saved_search.match'],
      true,
      OPERATOR,
    );
    secret = endpoint.secret!;

    const file = await daily('20261002c.txt', [
      corporate({ doc: 'L26000000001', name: 'ACME WIDGETS HOLDINGS LLC', city: 'MIAMI', fileDate: '09282026' }),
      corporate({ doc: 'L26000000003', name: 'SUNRISE BAKERY LLC', city: 'ORLANDO', fileDate: '10012026' }),
      corporate({ doc: 'L26000000004', name: 'SUNSET BAKERY LLC', city: 'MIAMI', fileDate: '10012026' }),
    ]);
    await importRegistry(db.pool, [file]);
    await deliverAll();
    const got = receiver.events();
    assert.deepEqual(got.map((e) => e.type).sort(), ['entity.created', 'entity.updated', 'saved_search.match']);
    const updated = got.find((e) => e.type === 'entity.updated')!;
    assert.equal(updated.data.document_number, 'L26000000001');
    assert.deepEqual(updated.data.changes, [
      { field: 'name', old: 'ACME WIDGETS LLC', new: 'ACME WIDGETS HOLDINGS LLC' },
    ]);
    const match = got.find((e) => e.type === 'saved_search.match')!;
    assert.deepEqual(match.data, {
      document_number: 'L26000000003',
      saved_search: { id: search.id, name: 'Orlando bakeries' },
    });
    // Standard Webhooks' own verifier accepts every delivery with the secret as shown (its timestamp checked too);
    // X-SVC-Signature is the body's HMAC under the same secret.
    for (const r of receiver.got) {
      const verified = new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as { id: string };
      assert.equal(r.headers['webhook-id'], verified.id);
      assert.equal(r.headers['x-svc-signature'], hmac(secret, r.body));
      assert.equal(r.headers['x-svc-timestamp'], undefined);
    }
    assert.throws(() => new Webhook(newSecret()).verify(receiver.got[0]!.body, receiver.got[0]!.headers as never));
    // The same file again is refused by the importer: no event twice.
    const before = await eventCount();
    const again = await importRegistry(db.pool, [file]);
    assert.equal(again.files[0]!.status, 'already_imported');
    assert.equal(await eventCount(), before);
  });

  it('signs with the old secret beside the new for 24 hours after a rotation, then with the new alone', async () => {
    const endpoint = (await listEndpoints(db.pool, workspace))[0]!;
    const ping = async (): Promise<{ body: string; headers: Record<string, string> }> => {
      receiver.got.length = 0;
      await sendTestEvent(db.pool, workspace, endpoint.id);
      await deliverAll();
      return { body: receiver.got[0]!.body, headers: receiver.got[0]!.headers as Record<string, string> };
    };
    const verifies = (key: string, d: { body: string; headers: Record<string, string> }): boolean => {
      try {
        new Webhook(key).verify(d.body, d.headers);
        return true;
      } catch {
        return false;
      }
    };
    const rotated = (await changeEndpoint(db.pool, workspace, endpoint.id, 'rotate', OPERATOR)).secret!;
    const during = await ping();
    assert.deepEqual([verifies(secret, during), verifies(rotated, during)], [true, true]);
    assert.equal(during.headers['x-svc-signature'], hmac(rotated, during.body));
    await db.pool.query(`UPDATE webhook_endpoints SET previous_secret_until = now() WHERE id = $1`, [endpoint.id]);
    const after = await ping();
    assert.deepEqual([verifies(secret, after), verifies(rotated, after)], [false, true]);
    secret = rotated;
  });

  it('keeps retrying while the receiver is down: every event arrives once up, under its first id', async () => {
    receiver.got.length = 0;
    await receiver.stop();
    await importRegistry(db.pool, [
      await daily('20261003c.txt', [
        corporate({ doc: 'L26000000001', name: 'ACME WIDGETS HOLDINGS LLC', city: 'TAMPA', fileDate: '09282026' }),
        corporate({ doc: 'L26000000005', name: 'MOONLIGHT BAKERY INC', city: 'ORLANDO', fileDate: '10022026' }),
      ]),
    ]);
    await deliverDue(db.pool, SETTINGS, null);
    const { rows: failing } = await db.pool.query<{ attempts: number; status: string }>(
      `SELECT attempts, status FROM webhook_deliveries WHERE status = 'pending'`,
    );
    assert.equal(failing.length, 3);
    assert.ok(failing.every((d) => d.attempts >= 1));
    const { rows: logged } = await db.pool.query(`SELECT 1 FROM webhook_attempts WHERE error IS NOT NULL`);
    assert.ok(logged.length >= 3, 'failed attempts are logged');
    await receiver.start();
    await deliverAll();
    const ids = receiver.events().map((e) => e.id);
    const { rows: stored } = await db.pool.query<{ id: string }>(
      `SELECT id FROM monitoring_events WHERE payload->>'file' = '20261003c.txt' ORDER BY id`,
    );
    assert.deepEqual(
      [...new Set(ids)].sort(),
      stored.map((r) => r.id),
    );
    const updated = receiver.events().find((e) => e.type === 'entity.updated')!;
    assert.deepEqual(updated.data.changes, [{ field: 'principal_city', old: 'MIAMI', new: 'TAMPA' }]);

    // A replay sends the same event again, under the same id, its attempts counted afresh (one, once delivered).
    receiver.got.length = 0;
    await replayEvent(db.pool, workspace, updated.id);
    await deliverAll();
    const { rows: replayed } = await db.pool.query<{ attempts: number }>(
      'SELECT attempts FROM webhook_deliveries WHERE event_id = $1',
      [updated.id],
    );
    assert.deepEqual(
      replayed.map((d) => d.attempts),
      [1],
    );
    assert.deepEqual(
      receiver.events().map((e) => e.id),
      [updated.id],
    );
    const page = await listEvents(db.pool, workspace, { limit: 10, offset: 0, types: ['entity.updated'] });
    assert.equal(page.total, 2);
  });

  it('reports what the detail shows changing: a blanked state or country shown as before is none', async () => {
    const doc = 'L26000000020';
    const rec = { doc, name: 'BLANKED STATE LLC', city: 'MIAMI', fileDate: '09282026' };
    await importRegistry(db.pool, [await daily('20261004c.txt', [corporate({ ...rec, state: 'FL', country: 'US' })])]);
    await addWatch(db.pool, workspace, 'growth', doc);
    receiver.got.length = 0;
    await importRegistry(db.pool, [
      await daily('20261005c.txt', [corporate({ ...rec, name: 'BLANKED STATE HOLDINGS LLC' })]),
    ]);
    await deliverAll();
    const updated = receiver.events().filter((e) => e.type === 'entity.updated');
    assert.deepEqual(
      updated.map((e) => [e.data.name, e.data.changes]),
      [
        [
          'BLANKED STATE HOLDINGS LLC',
          [{ field: 'name', old: 'BLANKED STATE LLC', new: 'BLANKED STATE HOLDINGS LLC' }],
        ],
      ],
    );
  });

  it('marks a delivery failed after 72 hours of failures, pauses its endpoint and mails the owner', async () => {
    const clock = new ManualClock('2026-10-01T12:00:00Z');
    const owned = (await createWorkspace(db.pool, { plan: 'growth' }, 'pepper', clock)).workspace.id;
    await db.pool.query(
      `INSERT INTO users (id, email, password_hash, created_at, password_changed_at)
       VALUES ('usr_owner', 'owner@example.com', 'x', now(), now())`,
    );
    await db.pool.query(
      `INSERT INTO workspace_members (workspace_id, user_id, role, created_at)
       VALUES ($1, 'usr_owner', 'owner', now())`,
      [owned],
    );
    // A port nothing listens on: every attempt fails.
    const down = await createEndpoint(
      db.pool,
      owned,
      'growth',
      'http://127.0.0.1:9/hook',
      ['entity.updated'],
      true,
      OPERATOR,
    );
    const ping = await sendTestEvent(db.pool, owned, down.id);
    const mails: string[] = [];
    const mailer = { send: async (m: { to: string; subject: string }) => void mails.push(`${m.to}: ${m.subject}`) };
    await deliverDue(db.pool, SETTINGS, { ...mailer, close: () => {} });
    const pending = await db.pool.query(`SELECT status FROM webhook_deliveries WHERE event_id = $1`, [ping.id]);
    assert.equal(pending.rows[0].status, 'pending', 'a first failure is retried');
    await db.pool.query(
      `UPDATE webhook_deliveries SET created_at = now() - interval '73 hours', next_attempt_at = now()
       WHERE event_id = $1`,
      [ping.id],
    );
    await deliverDue(db.pool, SETTINGS, { ...mailer, close: () => {} });
    const { rows } = await db.pool.query(
      `SELECT d.status, p.paused_reason FROM webhook_deliveries d JOIN webhook_endpoints p ON p.id = d.endpoint_id
       WHERE d.event_id = $1`,
      [ping.id],
    );
    assert.deepEqual(rows, [{ status: 'failed', paused_reason: 'failing' }]);
    assert.deepEqual(mails, ['owner@example.com: Webhook endpoint paused']);
  });

  it('refuses bad input and changes nothing', async () => {
    const clock = new ManualClock('2026-10-01T12:00:00Z');
    const pro = (await createWorkspace(db.pool, { plan: 'pro' }, 'pepper', clock)).workspace.id;
    const dev = (await createWorkspace(db.pool, { plan: 'developer' }, 'pepper', clock)).workspace.id;
    const refused = async (p: Promise<unknown>, kind: Refusal['kind'], field: string): Promise<void> => {
      await assert.rejects(p, (err: unknown) => err instanceof Refusal && err.kind === kind && err.field === field);
    };
    await refused(addWatch(db.pool, pro, 'pro', 'L99999999999'), 'not_found', 'document_number');
    await refused(addWatch(db.pool, dev, 'developer', 'L26000000001'), 'forbidden', 'plan');
    const types = ['entity.updated'];
    await refused(createEndpoint(db.pool, pro, 'pro', 'not a url', types, false, OPERATOR), 'bad_request', 'url');
    await refused(
      createEndpoint(db.pool, pro, 'pro', 'http://example.com/h', types, false, OPERATOR),
      'bad_request',
      'url',
    );
    await refused(
      createEndpoint(db.pool, pro, 'pro', 'https://10.1.2.3/h', types, false, OPERATOR),
      'bad_request',
      'url',
    );
    await refused(createEndpoint(db.pool, pro, 'pro', 'https://[::1]/h', types, false, OPERATOR), 'bad_request', 'url');
    await refused(
      createEndpoint(db.pool, pro, 'pro', 'https://localhost/h', types, false, OPERATOR),
      'bad_request',
      'url',
    );
    await createEndpoint(db.pool, pro, 'pro', 'https://hooks.example.com/a', types, false, OPERATOR);
    await createEndpoint(db.pool, pro, 'pro', 'https://hooks.example.com/b', types, false, OPERATOR);
    await refused(
      createEndpoint(db.pool, pro, 'pro', 'https://hooks.example.com/c', types, false, OPERATOR),
      'forbidden',
      'webhook endpoints',
    );
    const { rows } = await db.pool.query('SELECT workspace_id FROM webhook_endpoints WHERE workspace_id = ANY($1)', [
      [pro, dev],
    ]);
    assert.equal(rows.length, 2);
    const { rows: watches } = await db.pool.query('SELECT 1 FROM watched_entities WHERE workspace_id = ANY($1)', [
      [pro, dev],
    ]);
    assert.equal(watches.length, 0);
  });

  it('refuses WEBHOOKS_ALLOW_PRIVATE in production: a development setting', () => {
    const production = {
      NODE_ENV: 'production',
      DATABASE_URL: 'postgres://db/registry',
      API_KEY_PEPPER: 'pepper',
      SMTP_URL: 'smtp://mail.example.com:587',
      COMPANY_NAME: 'Example Data LLC',
      SUPPORT_EMAIL: 'support@example.com',
      CHECKOUT_PROVIDER: 'local',
    };
    assert.equal(loadConfig(production).webhooks.allowPrivate, false);
    assert.throws(() => loadConfig({ ...production, WEBHOOKS_ALLOW_PRIVATE: '1' }), /WEBHOOKS_ALLOW_PRIVATE/);
    assert.equal(loadConfig({ WEBHOOKS_ALLOW_PRIVATE: '1' }).webhooks.allowPrivate, true);
  });

  it('delivers by its own setting, whatever SCHEDULER says', () => {
    assert.equal(loadConfig({ SCHEDULER: '0' }).webhooks.deliver, true);
    assert.equal(loadConfig({ SCHEDULER: '1', WEBHOOKS_DELIVERY: '0' }).webhooks.deliver, false);
  });

  it('refuses private addresses a host resolves to, and backs off exponentially', async () => {
    await assert.rejects(resolveTarget('https://localhost/hook', false), /private, loopback or link-local/);
    for (const a of ['127.0.0.1', '10.0.0.8', '169.254.169.254', '192.168.1.1', '::1', 'fe80::1', '::ffff:10.0.0.1'])
      assert.ok(isPrivateAddress(a), a);
    // IPv6 forms that carry a private IPv4 address: mapped (as the URL parser writes it), compatible, NAT64, 6to4.
    for (const a of [
      '::ffff:7f00:1',
      '::127.0.0.1',
      '::7f00:1',
      '64:ff9b::7f00:1',
      '64:ff9b:1::a00:1',
      '2002:7f00:1::',
    ])
      assert.ok(isPrivateAddress(a), a);
    for (const a of ['8.8.8.8', '2606:4700::1111', '64:ff9b::808:808', '2002:808:808::1', '::ffff:8.8.8.8'])
      assert.ok(!isPrivateAddress(a), a);
    for (const host of ['[::127.0.0.1]', '[64:ff9b::7f00:1]', '[2002:7f00:1::]', '[::ffff:127.0.0.1]'])
      await assert.rejects(resolveTarget(`https://${host}/hook`, false), /private, loopback or link-local/, host);
    assert.deepEqual(
      [1, 2, 3, 10, 20].map((n) => backoffSeconds(n, 30)),
      [30, 60, 120, 15_360, 6 * 3600],
    );
  });

  it('drops a delivery whose endpoint is deleted while in flight, instead of failing the pass', async () => {
    const slow = http.createServer((_req, res) => void setTimeout(() => res.end('ok'), 400));
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/slow`;
    const endpoint = await createEndpoint(db.pool, workspace, 'growth', url, ['entity.updated'], true, OPERATOR);
    await sendTestEvent(db.pool, workspace, endpoint.id);
    const pass = deliverDue(db.pool, SETTINGS, null);
    await new Promise((resolve) => setTimeout(resolve, 150));
    await deleteEndpoint(db.pool, workspace, endpoint.id, OPERATOR);
    const counts = await pass;
    assert.equal(counts.dropped, 1);
    await new Promise<void>((resolve) => slow.close(() => resolve()));
  });

  it('purges the delivery attempts older than 30 days, and no newer one', async () => {
    const { rows } = await db.pool.query<{ id: number }>('SELECT id FROM webhook_deliveries LIMIT 1');
    const attempt = (daysAgo: number) =>
      db.pool.query(
        `INSERT INTO webhook_attempts (delivery_id, attempted_at, latency_ms)
         VALUES ($1, now() - make_interval(days => $2), 1)`,
        [rows[0]!.id, daysAgo],
      );
    await attempt(31);
    await attempt(29);
    const count = async (): Promise<number> =>
      (await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_attempts')).rows[0]!.n;
    const before = await count();
    assert.deepEqual(await purgeDeliveryLog(db.pool, new Date()), { deleted: 1 });
    assert.equal(await count(), before - 1);
  });
});
