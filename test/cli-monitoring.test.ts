// `registry webhooks ...` and `registry watches ...` (docs/webhooks.md, "CLI"): the operator manages a
// workspace's monitoring with the REST routes' validation and plan limits; a refusal exits non-zero and
// changes nothing.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { projectRoot } from '../src/config/paths.js';
import { testApp, type TestApp } from './support/app.js';
import { loadFixture } from './support/fixture.js';

let t: TestApp;
before(async () => {
  t = await testApp();
  await loadFixture(t.db.pool);
});
after(() => t.close());

const run = (args: string[]) =>
  promisify(execFile)(process.execPath, ['--import', 'tsx', path.join(projectRoot, 'src/cli/main.ts'), ...args], {
    cwd: projectRoot,
    env: { ...process.env, DATABASE_URL: t.db.url, LOG_LEVEL: 'silent', WEBHOOKS_ALLOW_PRIVATE: '0' },
  });
const cli = (args: string[]) =>
  run(args).then(
    (r) => ({ code: 0, out: JSON.parse(r.stdout) as Record<string, unknown> }),
    (e: { code: number; stdout: string }) => ({ code: e.code, out: JSON.parse(e.stdout) as Record<string, unknown> }),
  );

/** A listing's rows (the JSON output of a list command is an array). */
const rows = (out: unknown) => out as Array<Record<string, unknown>>;

const count = async (table: string, workspace: string): Promise<number> =>
  (await t.db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE workspace_id = $1`, [workspace]))
    .rows[0]!.n;

describe('registry webhooks / watches', () => {
  it('registers, tests, rotates, pauses and deletes an endpoint; reads its delivery log', async () => {
    const ws = (await t.workspace('growth')).workspace.id;
    const w = ['--workspace', ws, '--json'];
    const added = await cli(['webhooks', 'add', 'https://hooks.example.com/in', '--events', 'entity.updated', ...w]);
    assert.equal(added.code, 0, JSON.stringify(added.out));
    assert.match(String(added.out.secret), /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.deepEqual(added.out.event_types, ['entity.updated']);
    const id = String(added.out.id);
    // Read by a person: the endpoint, then its secret once, on a line of its own.
    const other = (await t.workspace('growth')).workspace.id;
    const shown = (await run(['webhooks', 'add', 'https://hooks.example.com/two', '--workspace', other])).stdout;
    assert.match(shown, /\n\nSigning secret \(shown once, keep it safe\): whsec_[A-Za-z0-9+/]{43}=\n/);
    assert.doesNotMatch(shown, /^secret/m);
    const [ping, rotated, paused] = [
      await cli(['webhooks', 'test', id, ...w]),
      await cli(['webhooks', 'rotate-secret', id, ...w]),
      await cli(['webhooks', 'pause', id, ...w]),
    ];
    assert.equal(ping.out.type, 'ping');
    assert.notEqual(rotated.out.secret, added.out.secret);
    assert.equal(paused.out.paused_reason, 'paused by hand');
    const listed = await cli(['webhooks', 'list', ...w]);
    assert.deepEqual(
      rows(listed.out).map((e) => [e.id, e.paused, e.secret]),
      [[id, true, undefined]],
    );
    const log = await cli(['webhooks', 'deliveries', id, '--limit', '5', ...w]);
    assert.deepEqual([log.code, log.out], [0, []], 'paused: the ping waits, nothing attempted yet');
    assert.deepEqual((await cli(['webhooks', 'delete', id, ...w])).out, { id, deleted: true });
    const again = await cli(['webhooks', 'delete', id, ...w]);
    assert.equal(again.code, 1);
    assert.match(String(again.out.error), /No webhook endpoint/);
    // Each change is in the workspace's audit log as the operator's; the refused delete is not.
    const { rows: audit } = await t.db.pool.query(
      'SELECT actor_kind, action, target FROM audit_events WHERE workspace_id = $1 ORDER BY id',
      [ws],
    );
    assert.deepEqual(
      audit.map((e) => [e.actor_kind, e.action, e.target]),
      ['add', 'rotate', 'pause', 'delete'].map((a) => ['operator', `webhook.${a}`, id]),
    );
  });

  it('watches, saves searches, lists and replays events', async () => {
    const ws = (await t.workspace('growth')).workspace.id;
    const w = ['--workspace', ws, '--json'];
    const doc = (await t.db.pool.query<{ d: string }>('SELECT document_number AS d FROM registry.entities LIMIT 1'))
      .rows[0]!.d;
    assert.equal((await cli(['watches', 'add', doc.toLowerCase(), ...w])).out.document_number, doc);
    assert.equal(rows((await cli(['watches', 'list', ...w])).out).length, 1);
    const saved = await cli([
      'watches',
      'save-search',
      'Miami LLCs',
      '--where',
      'principal_city=MIAMI',
      'entity_type=FLAL',
      ...w,
    ]);
    assert.equal(saved.code, 0, JSON.stringify(saved.out));
    assert.deepEqual(saved.out.params, { principal_city: 'MIAMI', entity_type: ['FLAL'] });
    assert.equal(rows((await cli(['watches', 'searches', ...w])).out).length, 1);
    const hook = await cli(['webhooks', 'add', 'https://hooks.example.com/in', ...w]);
    const ping = await cli(['webhooks', 'test', String(hook.out.id), ...w]);
    const events = await cli(['watches', 'events', '--limit', '5', ...w]);
    assert.deepEqual(
      rows(events.out).map((e) => e.id),
      [ping.out.id],
    );
    const replayed = await cli(['watches', 'replay', String(ping.out.id), ...w]);
    assert.equal(replayed.out.id, ping.out.id);
    assert.equal((await cli(['watches', 'delete-search', String(saved.out.id), ...w])).code, 0);
    assert.equal((await cli(['watches', 'remove', doc, ...w])).out.removed, true);
  });

  it('refuses bad input and plans without monitoring, exits non-zero, changes nothing', async () => {
    const ws = (await t.workspace('growth')).workspace.id;
    const dev = (await t.workspace('developer')).workspace.id;
    const cases: Array<[string[], RegExp]> = [
      [['webhooks', 'add', 'http://hooks.example.com/x', '--workspace', ws], /The URL /],
      [['webhooks', 'add', 'https://169.254.169.254/x', '--workspace', ws], /The URL /],
      [['webhooks', 'add', 'https://hooks.example.com/x', '--events', 'entity.gone', '--workspace', ws], /event_types/],
      [['webhooks', 'add', 'https://hooks.example.com/x', '--workspace', dev], /not part of the Developer plan/],
      [['webhooks', 'pause', 'nope', '--workspace', ws], /id: must be an id starting we_/],
      [['webhooks', 'deliveries', 'we_0123', '--limit', '0', '--workspace', ws], /limit: must be at least 1/],
      [['watches', 'add', 'no!', '--workspace', ws], /document_number/],
      [['watches', 'save-search', 'x', '--where', 'colour=red', '--workspace', ws], /colour: unknown parameter/],
      [['watches', 'save-search', 'x', '--where', 'status=zz', '--workspace', ws], /search\.status/],
      [['watches', 'events', '--since', 'yesterday', '--workspace', ws], /since: must be an ISO 8601 instant/],
      [['watches', 'list', '--workspace', 'ws_missing'], /no workspace|No/],
    ];
    for (const [args, message] of cases) {
      const res = await cli([...args, '--json']);
      assert.equal(res.code, 1, `${args.join(' ')}: ${JSON.stringify(res.out)}`);
      assert.match(String(res.out.error), message, args.join(' '));
    }
    for (const table of ['webhook_endpoints', 'watched_entities', 'saved_searches'])
      assert.equal((await count(table, ws)) + (await count(table, dev)), 0, table);
  });
});
