// What a hostile or careless client sends, over real sockets where Node's parser is involved: every
// answer in the error envelope with its right status, no 500 from input, nothing charged for it.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { ledgerCheck } from '../src/accounts/ledger.js';
import { setPerMinute } from '../src/accounts/workspaces.js';
import { OPERATIONS } from '../src/api/operations/index.js';
import { KEYLESS_OPERATIONS } from '../src/api/operations/keyless.js';
import { fastifyPath } from '../src/api/rest.js';
import { loadFixture } from './support/fixture.js';
import { testApp, type TestApp } from './support/app.js';

let t: TestApp;
let port: number;
let key: string;
let workspaceId: string;

before(async () => {
  t = await testApp({ now: '2026-03-10T12:00:00Z' });
  await loadFixture(t.db.pool);
  const address = await t.app.http.listen({ host: '127.0.0.1', port: 0 });
  port = Number(new URL(address).port);
  const w = await t.workspace('lead_feed');
  await setPerMinute(t.db.pool, w.workspace.id, 100_000);
  key = w.key.key;
  workspaceId = w.workspace.id;
});
after(() => t.close());

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The server closed the connection after the answer. */
  closed: boolean;
}

/** Sends raw bytes on a new connection and reads one answer (and whether the server then closed). */
function raw(request: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let data = '';
    let closed = false;
    const done = (): void => {
      const [head = '', ...rest] = data.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(
        lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
      );
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n'), closed });
    };
    socket.on('data', (d) => {
      data += d.toString('latin1');
      const length = Number(/content-length: (\d+)/i.exec(data)?.[1] ?? NaN);
      const bodyAt = data.indexOf('\r\n\r\n');
      // A kept-alive answer is complete once its body is in; wait a moment for a close that follows.
      if (bodyAt >= 0 && data.length - bodyAt - 4 >= length) setTimeout(() => (socket.destroy(), done()), 150);
    });
    socket.on('end', () => (closed = true));
    // A connection closed with no answer at all resolves too (status NaN): the test fails instead of hanging.
    socket.on('close', done);
    socket.on('error', reject);
    socket.write(request, 'latin1');
  });
}

function assertEnvelope(a: RawAnswer, status: number): void {
  assert.equal(a.status, status, a.body);
  const body = JSON.parse(a.body) as { error: { code: string; message: string; request_id: string } };
  assert.equal(typeof body.error.code, 'string');
  assert.equal(typeof body.error.message, 'string');
  assert.match(body.error.request_id, /^req_[0-9A-Za-z]{20,}$/);
}

const balance = async (): Promise<number> => (await ledgerCheck(t.db.pool, workspaceId)).balance;

describe('input the database cannot hold', () => {
  // Every free-text parameter of every operation, as REST would send it.
  const textParams = [...OPERATIONS, ...KEYLESS_OPERATIONS].flatMap((op) =>
    Object.keys(op.params.shape)
      .filter((name) => !op.path.includes(`{${name}}`))
      .map((name) => ({ op, name })),
  );

  it('a NUL character in any parameter is a 400 naming it, and costs nothing', async () => {
    assert.ok(textParams.length > 30);
    const before = await balance();
    for (const { op, name } of textParams) {
      const route = `/v1${fastifyPath(op.path).replace(':document_number', 'L23000448570')}`;
      // A body operation takes the character in its JSON body, a query operation in its query.
      const res =
        (op.method ?? 'get') === 'get'
          ? await t.get(`${route}?${name}=a%00b`, key)
          : await t.app.http.inject({
              method: op.method!.toUpperCase() as 'POST',
              url: route,
              headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
              payload: JSON.stringify({ [name]: 'a\u0000b' }),
            });
      assert.equal(res.statusCode, 400, `${op.name} ${name}: ${res.body}`);
      assert.ok(res.json().error.details?.[name], `${op.name} ${name}: ${res.body}`);
    }
    assert.equal(await balance(), before);
  });

  it('also through MCP: -32602 naming the argument', async () => {
    const res = await t.app.http.inject({
      method: 'POST',
      url: '/mcp',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      payload: {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'search_entities', arguments: { principal_city: 'a\u0000b' } },
      },
    });
    const error = res.json().error;
    assert.equal(error.code, -32602);
    assert.ok(error.data.details.principal_city);
  });
});

describe('answers outside the routes, in the envelope', () => {
  it('headers over 16 KB: 431, Connection: close, and the server closes', async () => {
    const a = await raw(`GET /v1/sample HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    assertEnvelope(a, 431);
    assert.equal(a.headers.connection, 'close');
    assert.ok(a.closed);
  });

  it('malformed HTTP: 400 and Connection: close', async () => {
    const a = await raw('GARBAGE NOT HTTP\r\n\r\n');
    assertEnvelope(a, 400);
    assert.equal(a.headers.connection, 'close');
  });

  it('HTTP/1.1 without Host: 400 with a body', async () => {
    const a = await raw('GET /v1/sample HTTP/1.1\r\n\r\n');
    assertEnvelope(a, 400);
    assert.match(JSON.parse(a.body).error.message, /Host/);
  });

  it('two Host headers: 400, Connection: close', async () => {
    const a = await raw('GET /v1/sample HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n');
    assertEnvelope(a, 400);
    assert.match(JSON.parse(a.body).error.message, /one Host/);
    assert.equal(a.headers.connection, 'close');
  });

  it('CONNECT: 405 in the envelope, Connection: close (no tunnel, and no socket closed unanswered)', async () => {
    const a = await raw('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    assertEnvelope(a, 405);
    assert.equal(a.headers.allow, 'GET, POST');
    assert.ok(a.closed);
  });

  it('every answer, JSON or not, in the envelope or not, says X-Content-Type-Options: nosniff', async () => {
    for (const request of [
      'GET /v1/sample HTTP/1.1\r\nHost: x\r\n\r\n',
      'GET /v1/nothing-here HTTP/1.1\r\nHost: x\r\n\r\n',
      'GET /v1/entities/search?name=x HTTP/1.1\r\nHost: x\r\n\r\n',
      'GARBAGE NOT HTTP\r\n\r\n',
      'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n',
    ])
      assert.equal((await raw(request)).headers['x-content-type-options'], 'nosniff', request);
  });

  it('a path that is not UTF-8: 400, the URL not echoed', async () => {
    const a = await raw('GET /v1/entities/%FF%FE HTTP/1.1\r\nHost: x\r\n\r\n');
    assertEnvelope(a, 400);
    assert.equal(a.headers['x-request-id'], JSON.parse(a.body).error.request_id);
    assert.ok(!a.body.includes('%FF'));
  });

  it('a path parameter over the router limit: 400', async () => {
    const a = await raw(`GET /v1/entities/${'A'.repeat(150)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    assertEnvelope(a, 400);
  });

  it('a kept-alive connection goes on after a 4xx answered in the envelope', async () => {
    const socket = net.connect(port, '127.0.0.1');
    const answers: string[] = [];
    await new Promise<void>((resolve, reject) => {
      let data = '';
      socket.on('data', (d) => {
        data += d.toString();
        if ((data.match(/HTTP\/1\.1 \d{3}/g) ?? []).length === 2 && data.trimEnd().endsWith('}')) {
          answers.push(...(data.match(/HTTP\/1\.1 \d{3}/g) ?? []));
          resolve();
        }
      });
      socket.on('error', reject);
      socket.write('GET /v1/entities/%FF HTTP/1.1\r\nHost: x\r\n\r\nGET /v1/sample HTTP/1.1\r\nHost: x\r\n\r\n');
    });
    socket.destroy();
    assert.deepEqual(answers, ['HTTP/1.1 400', 'HTTP/1.1 200']);
  });
});

describe('credentials', () => {
  it('a repeated Authorization header is refused, even when the first is a valid key', async () => {
    const other = await t.workspace('developer');
    const a = await raw(
      `GET /v1/filings/recent HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n` +
        `Authorization: Bearer ${other.key.key}\r\n\r\n`,
    );
    assertEnvelope(a, 401);
    assert.equal(JSON.parse(a.body).error.code, 'unauthorized');
    const same = await raw(
      `GET /v1/filings/recent HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n` +
        `Authorization: Bearer ${key}\r\n\r\n`,
    );
    assertEnvelope(same, 401);
  });
});

describe('HEAD', () => {
  it('on a metered route: 405 with Allow: GET, neither run nor charged', async () => {
    const before = await balance();
    const res = await t.app.http.inject({
      method: 'HEAD',
      url: '/v1/entities/search?name=x',
      headers: { authorization: `Bearer ${key}` },
    });
    assert.equal(res.statusCode, 405);
    assert.equal(res.headers.allow, 'GET');
    assert.equal(await balance(), before);
  });

  it('on the health check: answered', async () => {
    assert.equal((await t.app.http.inject({ method: 'HEAD', url: '/healthz' })).statusCode, 200);
  });
});
