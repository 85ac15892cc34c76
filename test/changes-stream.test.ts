// GET /v1/changes/stream (docs/contract.md, "Change feed"), over a real connection: a client that disconnects and
// reconnects with Last-Event-ID misses nothing and repeats nothing; an import's changes arrive while it is open;
// filters keep what the list keeps; a credit as it opens and one for each further 1,000 events, the stream ended
// when one is refused; the plan gate, the streams a workspace may hold, bad inputs and a purged position refused
// before anything is charged.
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { rm } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { ledgerCheck } from '../src/accounts/ledger.js';
import { adjustCredits, setPerMinute } from '../src/accounts/workspaces.js';
import { importRegistry } from '../src/main/importer.js';
import { purgeChanges } from '../src/registry/feed/purge.js';
import type { ChangeRow } from '../src/registry/feed/read.js';
import { testApp, type TestApp } from './support/app.js';
import { changedRegistry, newestChange, type ChangedRegistry } from './support/changes.js';
import { importCorps, type Corp } from './support/records.js';

let t: TestApp;
let r: ChangedRegistry;
let port: number;

/** New entities of one daily file: more changes than a stream's first block of 1,000 events. */
const MANY: Corp[] = Array.from({ length: 1_200 }, (_, i) => ({
  doc: `N${String(i + 1).padStart(11, '0')}`,
  name: `NEW VENTURE ${i + 1} LLC`,
  city: 'ORLANDO',
  zip: '32801',
}));

before(async () => {
  t = await testApp({ now: '2026-11-21T12:00:00Z' });
  r = await changedRegistry(t, 12_000, 79);
  await importCorps(t.db.pool, MANY);
  port = Number(new URL(await t.app.http.listen({ host: '127.0.0.1', port: 0 })).port);
});
after(async () => {
  await t.close();
  await rm(r.dir, { recursive: true, force: true });
});

interface Message {
  id?: string;
  event?: string;
  data?: string;
  retry?: string;
}

/** A client of the stream: its status, the events as they arrive, the comments, and its end. */
class Stream {
  readonly messages: Message[] = [];
  readonly comments: string[] = [];
  status = 0;
  body = '';
  ended = false;
  private buffer = '';
  private readonly waiters = new Set<() => void>();
  private req: http.ClientRequest | null = null;

  static open(query: string, key: string, headers: Record<string, string> = {}): Promise<Stream> {
    const s = new Stream();
    return new Promise((resolve, reject) => {
      s.req = http.get(
        {
          host: '127.0.0.1',
          port,
          path: `/v1/changes/stream?${query}`,
          headers: { authorization: `Bearer ${key}`, ...headers },
        },
        (res) => {
          s.status = res.statusCode!;
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => s.take(chunk));
          res.on('end', () => {
            s.ended = true;
            s.wake();
          });
          res.on('error', () => {});
          resolve(s);
        },
      );
      s.req.on('error', reject);
    });
  }

  get changes(): ChangeRow[] {
    return this.messages.filter((m) => m.event === 'change').map((m) => JSON.parse(m.data!) as ChangeRow);
  }

  private take(chunk: string): void {
    if (this.status !== 200) {
      this.body += chunk;
      return;
    }
    this.buffer += chunk;
    let end: number;
    while ((end = this.buffer.indexOf('\n\n')) >= 0) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const message: Message = {};
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) this.comments.push(line.slice(1).trim());
        else {
          const at = line.indexOf(': ');
          (message as Record<string, string>)[line.slice(0, at)] = line.slice(at + 2);
        }
      }
      if (Object.keys(message).length) this.messages.push(message);
    }
    this.wake();
  }

  private wake(): void {
    for (const w of this.waiters) w();
  }

  /** Waits until `done` holds (or the stream ends, or `ms` pass: then it fails). */
  async until(done: (s: Stream) => boolean, ms = 20_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!done(this)) {
      assert.ok(!this.ended, `the stream ended: ${JSON.stringify(this.messages.at(-1))}`);
      const left = deadline - Date.now();
      assert.ok(left > 0, `waited ${ms} ms: ${this.changes.length} changes, ${this.comments.length} comments`);
      await new Promise<void>((resolve) => {
        const w = (): void => {
          this.waiters.delete(w);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(w, left);
        this.waiters.add(w);
      });
    }
  }

  close(): void {
    this.req?.destroy();
  }
}

/** Every change `query` matches, walked by cursor. */
async function walk(query = ''): Promise<ChangeRow[]> {
  const rows: ChangeRow[] = [];
  let url = `/v1/changes?limit=1000${query ? `&${query}` : ''}`;
  for (;;) {
    const res = await t.get(url, r.key);
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json() as { data: ChangeRow[]; pagination: { has_more: boolean; next_cursor: string } };
    rows.push(...body.data);
    if (!body.pagination.has_more) return rows;
    url = `/v1/changes?limit=1000${query ? `&${query}` : ''}&cursor=${body.pagination.next_cursor}`;
  }
}

const balance = async (workspace: string): Promise<number> => (await ledgerCheck(t.db.pool, workspace)).balance;

/** The stream's charges in the request log: its rows and their credits. */
const streamLog = async (workspace: string): Promise<{ rows: number; credits: number }> => {
  const { rows } = await t.db.pool.query<{ rows: number; credits: number }>(
    `SELECT count(*)::int AS rows, coalesce(sum(credits), 0)::int AS credits FROM request_logs
     WHERE workspace_id = $1 AND route = '/v1/changes/stream' AND credits > 0`,
    [workspace],
  );
  return rows[0]!;
};

/** The open streams' leases of a workspace. */
const leases = async (workspace: string): Promise<number> =>
  (await t.db.pool.query('SELECT count(*)::int AS n FROM change_streams WHERE workspace_id = $1', [workspace])).rows[0]
    .n;

describe('the change stream', { timeout: 180_000 }, () => {
  it('a client that reconnects with Last-Event-ID misses nothing and repeats nothing', async () => {
    const all = await walk();
    assert.ok(all.length > 1_250, `${all.length} changes`);
    const spent = await balance(r.workspace);
    const first = await Stream.open('last_event_id=0', r.key);
    assert.equal(first.status, 200);
    await first.until((s) => s.changes.length >= 250);
    first.close();
    assert.equal(first.messages[0]!.retry, '1000');
    const got = first.changes;
    const last = got.at(-1)!.sequence;
    assert.equal(first.messages.filter((m) => m.event === 'change').at(-1)!.id, String(last));
    // As EventSource reconnects: the URL it opened, the last id it saw in the header.
    const second = await Stream.open('last_event_id=0', r.key, { 'last-event-id': String(last) });
    await second.until((s) => (s.changes.at(-1)?.sequence ?? 0) >= all.at(-1)!.sequence);
    second.close();
    assert.deepEqual([...got, ...second.changes], all);
    // A credit as each connection opened, and one for each further block of 1,000 events the server sent: the
    // second sent more than 1,000; the first may have, into the socket's buffers, before its client left.
    const log = await streamLog(r.workspace);
    assert.equal(spent - (await balance(r.workspace)), log.credits);
    assert.ok(log.credits === 3 || log.credits === 4, `${log.credits} credits`);
  });

  it("an import's changes arrive while the stream is open, and its filters keep what the list's keep", async (c) => {
    // Replayed: the new entities of Orange county among every other change.
    const orange = await walk('kind=created&county=orange');
    assert.ok(orange.length >= MANY.length, `${orange.length} changes`);
    const charged = await streamLog(r.workspace);
    const replay = await Stream.open('last_event_id=0&kind=created&county=orange', r.key);
    await replay.until((s) => s.changes.length >= orange.length);
    assert.deepEqual(replay.changes, orange);
    // All sent and read: a credit as it opened, one for the block past the first 1,000 events.
    assert.equal((await streamLog(r.workspace)).credits - charged.credits, 2);
    replay.close();

    const from = await newestChange(t);
    const live = await Stream.open('', r.key);
    const filtered = await Stream.open('kind=filing', r.key);
    await live.until((s) => s.comments.some((c) => c === `changes after ${from}`));
    await importRegistry(t.db.pool, [...r.held]);
    const imported = Date.now();
    const added = await walk(`after_sequence=${from}`);
    assert.ok(added.length > 5, `${added.length} changes`);
    await live.until((s) => s.changes.length >= added.length, 10_000);
    const seen = Date.now() - imported;
    assert.deepEqual(live.changes, added);
    assert.ok(seen < 10_000, `seen ${seen} ms after the import`);
    const kept = await walk(`after_sequence=${from}&kind=filing`);
    assert.ok(kept.length > 0 && kept.length < added.length, `${kept.length} of ${added.length}`);
    await filtered.until((s) => s.changes.length >= kept.length, 10_000);
    c.diagnostic(`${added.length} changes of the import, all seen ${seen} ms after it`);
    assert.deepEqual(filtered.changes, kept);
    live.close();
    filtered.close();
  });

  it('refunds a client that leaves while its opening credit is kept, and gives its lease back', async () => {
    const w = await t.workspace('enterprise');
    const held = await balance(w.workspace.id);
    // The credit's log row waits behind a lock; the client leaves meanwhile; then the lock goes.
    const blocker = await t.db.pool.connect();
    await blocker.query('BEGIN');
    await blocker.query('LOCK TABLE request_logs IN EXCLUSIVE MODE');
    const socket = net.connect(port, '127.0.0.1');
    socket.on('error', () => {});
    socket.write(`GET /v1/changes/stream HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${w.key.key}\r\n\r\n`);
    const waiting = async (): Promise<boolean> =>
      (await t.db.pool.query("SELECT 1 FROM pg_locks WHERE NOT granted AND relation = 'request_logs'::regclass"))
        .rowCount! > 0;
    for (let i = 0; i < 100 && !(await waiting()); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok(await waiting(), "the opening credit's keep waits for the lock");
    socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 200));
    await blocker.query('COMMIT');
    blocker.release();
    const deadline = Date.now() + 5_000;
    while ((await balance(w.workspace.id)) !== held || (await leases(w.workspace.id)) > 0) {
      assert.ok(Date.now() < deadline, 'refunded, and its lease given back, within 5 s');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.ok((await ledgerCheck(t.db.pool, w.workspace.id)).consistent);
  });

  it('ends with the refusal when a further block of events is not paid for, having charged what it sent', async () => {
    const poor = await t.workspace('enterprise');
    await setPerMinute(t.db.pool, poor.workspace.id, 1_000_000);
    const held = await balance(poor.workspace.id);
    await adjustCredits(t.db.pool, poor.workspace.id, 1 - held, 'test: one credit left', t.clock);
    const s = await Stream.open('last_event_id=0', poor.key.key);
    await s.until((x) => x.ended, 30_000);
    assert.equal(s.changes.length, 1_000);
    const end = s.messages.at(-1)!;
    assert.equal(end.event, 'end');
    const said = JSON.parse(end.data!) as { reason: string; error: { code: string; message: string } };
    assert.equal(said.reason, 'refused');
    assert.equal(said.error.code, 'rate_limited');
    assert.match(said.error.message, /Monthly credit quota exhausted/);
    assert.equal(await balance(poor.workspace.id), 0);
    assert.deepEqual(await streamLog(poor.workspace.id), { rows: 1, credits: 1 });
  });

  it('is refused, free, on plans without it, past the streams a workspace may hold, and to bad input', async () => {
    for (const plan of ['pro', 'developer', 'free_trial']) {
      const w = await t.workspace(plan);
      const before = await balance(w.workspace.id);
      const s = await Stream.open('', w.key.key);
      await s.until((x) => x.ended);
      assert.equal(s.status, 403, plan);
      assert.equal(JSON.parse(s.body).error.code, 'forbidden');
      assert.match(JSON.parse(s.body).error.message, /Lead Feed and Enterprise plans/);
      assert.equal(await balance(w.workspace.id), before, plan);
    }
    // The credit as it opens is taken after the plan's checks, by the gate: none left, none taken, no lease kept.
    const empty = await t.workspace('enterprise');
    await adjustCredits(t.db.pool, empty.workspace.id, -(await balance(empty.workspace.id)), 'test: none', t.clock);
    const refused = await Stream.open('', empty.key.key);
    await refused.until((x) => x.ended);
    assert.equal(refused.status, 429, refused.body);
    assert.match(JSON.parse(refused.body).error.message, /Monthly credit quota exhausted/);
    assert.equal(await balance(empty.workspace.id), 0);
    assert.equal(await leases(empty.workspace.id), 0);

    const lead = await t.workspace('lead_feed');
    const open = [await Stream.open('', lead.key.key), await Stream.open('', lead.key.key)];
    for (const s of open) await s.until((x) => x.comments.length > 0);
    const before = await balance(lead.workspace.id);
    const third = await Stream.open('', lead.key.key);
    await third.until((x) => x.ended);
    assert.equal(third.status, 429);
    assert.equal(JSON.parse(third.body).error.code, 'rate_limited');
    assert.equal(await balance(lead.workspace.id), before);
    open[0]!.close();
    const deadline = Date.now() + 5_000;
    while ((await leases(lead.workspace.id)) > 1) {
      assert.ok(Date.now() < deadline, 'a closed stream gives its lease back');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const again = await Stream.open('', lead.key.key);
    assert.equal(again.status, 200);
    again.close();
    open[1]!.close();

    const spent = await balance(r.workspace);
    const bad: Array<[string, Record<string, string>, string]> = [
      ['kind=nope', {}, 'kind'],
      ['county=Atlantis', {}, 'county'],
      ['since=2026-02-30', {}, 'since'],
      ['last_event_id=-1', {}, 'last_event_id'],
      ['', { 'last-event-id': 'abc' }, 'last_event_id'],
      ['limit=5', {}, 'limit'],
    ];
    for (const [query, headers, param] of bad) {
      const s = await Stream.open(query, r.key, headers);
      await s.until((x) => x.ended);
      assert.equal(s.status, 400, `${query}: ${s.body}`);
      assert.ok(JSON.parse(s.body).error.details[param], `${query}: ${s.body}`);
    }
    const head = await t.app.http.inject({
      method: 'HEAD',
      url: '/v1/changes/stream',
      headers: { authorization: `Bearer ${r.key}` },
    });
    assert.equal(head.statusCode, 405);
    assert.equal(await balance(r.workspace), spent);
  });

  it('refuses a purged position with 410, free', async () => {
    const newest = await newestChange(t);
    await purgeChanges(t.db.pool, new Date(Date.now() + 400 * 86_400_000));
    const spent = await balance(r.workspace);
    const s = await Stream.open('', r.key, { 'last-event-id': String(newest - 10) });
    await s.until((x) => x.ended);
    assert.equal(s.status, 410);
    assert.equal(JSON.parse(s.body).error.code, 'cursor_expired');
    assert.equal(await balance(r.workspace), spent);
    const resumed = await Stream.open('', r.key, { 'last-event-id': String(newest) });
    assert.equal(resumed.status, 200);
    resumed.close();
  });

  it('ends its streams when the server closes, so that the close does not wait for them', async () => {
    const s = await Stream.open('', r.key);
    await s.until((x) => x.comments.length > 0);
    const started = Date.now();
    const closed = t.app.http.close();
    await s.until((x) => x.ended, 5_000);
    await closed;
    assert.ok(Date.now() - started < 2_000, `closed in ${Date.now() - started} ms`);
    assert.deepEqual(JSON.parse(s.messages.at(-1)!.data!), { reason: 'shutdown' });
  });
});
