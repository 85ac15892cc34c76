// A database that does not answer: REST answers its 500 envelope, and MCP the JSON-RPC -32603 of the
// contract at HTTP 200, for the free methods and tool calls alike, with the request's id.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildApp, type App } from '../src/main/app.js';
import { ManualClock } from '../src/clock.js';
import { loadConfig } from '../src/config/index.js';
import { createPool } from '../src/db/pool.js';

// Nothing listens on port 1: every connection is refused, as when PostgreSQL is down.
const DOWN_URL = 'postgres://nobody@127.0.0.1:1/none';
const KEY = `svc_live_${'a'.repeat(32)}`;

let app: App;
let dataDir: string;
const pool = createPool(DOWN_URL, 2);

before(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'rl-outage-'));
  const config = loadConfig({ DATABASE_URL: DOWN_URL, DATA_DIR: dataDir, LOG_LEVEL: 'silent', SCHEDULER: '0' });
  const db = { pool, readPool: pool, embedded: false, close: async () => {} };
  app = await buildApp({ config, db, pepper: 'p', clock: new ManualClock('2026-03-10T12:00:00Z') });
});
after(async () => {
  await app.http.close();
  await pool.end();
  await rm(dataDir, { recursive: true, force: true });
});

const mcp = (body: unknown) =>
  app.http.inject({
    method: 'POST',
    url: '/mcp',
    headers: {
      authorization: `Bearer ${KEY}`,
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
    },
    payload: JSON.stringify(body),
  });

describe('the database does not answer', () => {
  it('REST answers 500 internal_error in the envelope', async () => {
    const res = await app.http.inject({
      method: 'GET',
      url: '/v1/entities/search?name=acme',
      headers: { authorization: `Bearer ${KEY}` },
    });
    assert.equal(res.statusCode, 500);
    assert.equal(res.json().error.code, 'internal_error');
    assert.equal(res.json().error.request_id, res.headers['x-request-id']);
  });

  it('MCP answers -32603 at 200 with the request id, for every method', async () => {
    const calls = [
      {
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      },
      { method: 'tools/list', params: {} },
      { method: 'tools/call', params: { name: 'search_entities', arguments: { name: 'acme' } } },
    ];
    for (const [i, call] of calls.entries()) {
      const res = await mcp({ jsonrpc: '2.0', id: `c-${i}`, ...call });
      assert.equal(res.statusCode, 200, call.method);
      const frame = res.json();
      assert.equal(frame.id, `c-${i}`, call.method);
      assert.equal(frame.error.code, -32603, call.method);
      assert.deepEqual(frame.error.data, { code: 'internal_error', request_id: res.headers['x-request-id'] });
    }
  });
});
