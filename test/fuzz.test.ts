// Property-based fuzzing of every route the served OpenAPI document describes (it is generated from the
// operation table), of MCP's JSON-RPC and of the billing bodies: valid values, wrong types, huge and
// empty values, NUL and invalid UTF-8, repeated and unknown parameters, hostile headers. Seeded and
// bounded in time (FUZZ_SECONDS, 25 by default; FUZZ_SEED). Every answer: no 5xx, the envelope (or a
// JSON-RPC frame naming the request), no credit or ledger row moved by a 4xx other than 404.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { setPerMinute } from '../src/accounts/workspaces.js';
import { loadFixture } from './support/fixture.js';
import { testApp, type TestApp } from './support/app.js';

const SECONDS = Number(process.env.FUZZ_SECONDS ?? 25);
const SEED = Number(process.env.FUZZ_SEED ?? 20261126);

let t: TestApp;
let port: number;
let agent: http.Agent;
let keys: { leads: string; trial: string };
let workspaces: string[];
let paths: Array<{ method: string; path: string; params: Param[]; body: boolean }>;

interface Param {
  name: string;
  in: 'query' | 'path';
  schema: { type?: string; enum?: string[]; items?: { enum?: string[] }; minimum?: number; maximum?: number };
}

before(async () => {
  t = await testApp({ now: '2026-03-10T12:00:00Z' });
  await loadFixture(t.db.pool);
  port = Number(new URL(await t.app.http.listen({ host: '127.0.0.1', port: 0 })).port);
  agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const leads = await t.workspace('lead_feed');
  const trial = await t.workspace('free_trial');
  for (const w of [leads, trial]) await setPerMinute(t.db.pool, w.workspace.id, 10_000_000);
  keys = { leads: leads.key.key, trial: trial.key.key };
  workspaces = [leads.workspace.id, trial.workspace.id];
  const doc = (await t.get('/v1/openapi.json')).json() as {
    paths: Record<string, Record<string, { parameters?: Param[]; requestBody?: unknown }>>;
    servers: Array<{ url: string }>;
  };
  paths = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops)
      .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
      .map(([method, op]) => ({
        method: method.toUpperCase(),
        path: path.startsWith('/billing') ? `/api/v1${path}` : `/v1${path}`,
        params: op.parameters ?? [],
        body: op.requestBody !== undefined,
      })),
  );
});
after(async () => {
  agent.destroy();
  await t.close();
});

/** Values people and programs send: valid ones from the schema, and hostile ones. */
const HOSTILE = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  'x'.repeat(5000),
  '-1',
  '1.5',
  '1e9',
  '99999999999999999999',
  'NaN',
  '[]',
  '{"a":1}',
  "' OR 1=1 --",
  '<script>alert(1)</script>',
  '../../etc/passwd',
  '\uD800',
  '😀 Ünïcödé',
  '%',
  ',,,',
  'null',
];
/** Percent sequences written into the query as they are: invalid UTF-8 and a NUL byte. */
const RAW_ENCODED = ['%FF', '%C3%28', '%E2%82', '%00', '%ZZ'];

type Value = { raw: string } | { text: string };

const valueFor = (p: Param): fc.Arbitrary<Value> => {
  const s = p.schema;
  const valid: fc.Arbitrary<string>[] = [fc.string({ maxLength: 12 })];
  const allowed = s.enum ?? s.items?.enum;
  if (allowed) valid.push(fc.constantFrom(...allowed));
  if (s.type === 'integer')
    valid.push(fc.integer({ min: (s.minimum ?? 0) - 3, max: (s.maximum ?? 600) + 3 }).map(String));
  if (p.name.includes('date') || p.name.startsWith('filed'))
    valid.push(fc.date({ noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)));
  return fc.oneof(
    { weight: 4, arbitrary: fc.oneof(...valid).map((text) => ({ text })) },
    { weight: 2, arbitrary: fc.constantFrom(...HOSTILE).map((text) => ({ text })) },
    { weight: 1, arbitrary: fc.constantFrom(...RAW_ENCODED).map((raw) => ({ raw })) },
  );
};

/** UTF-8 percent-encoding of any JS string (a lone surrogate becomes U+FFFD, as Node writes it). */
const encode = (v: Value): string =>
  'raw' in v
    ? v.raw
    : [...Buffer.from(v.text, 'utf8')]
        .map((b) => (/[A-Za-z0-9_.~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16)}`))
        .join('');

type Headers = Record<string, string | string[]>;
const credential = fc.oneof(
  { weight: 1, arbitrary: fc.constant<Headers>({}) },
  {
    weight: 6,
    arbitrary: fc
      .constantFrom('leads', 'trial')
      .map((k): Headers => ({ authorization: `Bearer ${keys[k as 'leads' | 'trial']}` })),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Headers>(
      { authorization: 'Bearer' },
      { authorization: 'Basic dXNlcjpwYXNz' },
      { authorization: `Bearer svc_live_${'A'.repeat(32)}` },
      { 'x-api-key': 'x'.repeat(2000) },
    ),
  },
  {
    weight: 1,
    arbitrary: fc.constant(0).map((): Headers => ({ authorization: [`Bearer ${keys.leads}`, `Bearer ${keys.trial}`] })),
  },
);

const extraHeaders = fc.constantFrom<Record<string, string>>(
  {},
  { accept: 'text/csv' },
  { accept: '*/*' },
  { 'x-forwarded-for': '1.2.3.4, 5.6.7.8' },
  { 'content-type': 'application/json' },
  { origin: 'https://evil.example.com' },
);

interface Sent {
  method: string;
  path: string;
  headers: Record<string, string | string[]>;
  body?: string;
}

const restRequest: fc.Arbitrary<Sent> = fc.integer({ min: 0, max: 1_000_000 }).chain((pick) => {
  const route = paths[pick % paths.length]!;
  const declared = route.params.filter((p) => p.in === 'query');
  const unknown = fc.tuple(
    fc.constantFrom('nam', 'api_key', 'format', 'limit[]', '__proto__'),
    valueFor({ name: 'x', in: 'query', schema: {} }),
  );
  const known = declared.length
    ? fc.constantFrom(...declared).chain((p) => valueFor(p).map((v): readonly [string, Value] => [p.name, v]))
    : unknown;
  const query = fc.array(fc.oneof({ weight: 5, arbitrary: known }, { weight: 1, arbitrary: unknown }), {
    maxLength: 6,
  });
  const pathValue = valueFor({ name: 'document_number', in: 'path', schema: {} });
  const body = fc.oneof(
    fc.constant(undefined),
    fc.constantFrom(
      '{"slug":"starter"}',
      '{"slug":"nope"}',
      '{',
      '[]',
      'null',
      '{"slug":"\\u0000"}',
      'x'.repeat(20_000),
    ),
  );
  return fc
    .record({ query, pathValue, cred: credential, extra: extraHeaders, body })
    .map(({ query: q, pathValue: v, cred, extra, body: b }) => {
      const path = route.path.replace(/\{(\w+)\}/g, () =>
        'text' in v ? encode({ text: v.text || 'L23000448570' }) : v.raw,
      );
      const qs = q.map(([k, value]) => `${encodeURIComponent(k)}=${encode(value)}`).join('&');
      return {
        method: route.method,
        path: qs ? `${path}?${qs}` : path,
        headers: { ...extra, ...cred },
        ...(route.body && b !== undefined ? { body: b } : {}),
      };
    });
});

const jsonRpc = fc.oneof(
  fc
    .record({
      name: fc.constantFrom('search_entities', 'get_entity', 'search_officers', 'list_new_business_leads', 'nope'),
      args: fc.dictionary(
        fc.constantFrom('name', 'limit', 'offset', 'document_number', 'county', 'principal_city', 'x'),
        fc.oneof(fc.constantFrom(...HOSTILE), fc.integer(), fc.constant(null), fc.array(fc.string(), { maxLength: 3 })),
      ),
    })
    .map(({ name, args }) =>
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
    ),
  fc.constantFrom(
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":5}}',
    '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":[]}}',
    '{"jsonrpc":"2.0","id":1,"method":"nope"}',
    '{"jsonrpc":"1.0","id":1,"method":"ping"}',
    '{"jsonrpc":"2.0","method":"notifications/initialized"}',
    '[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]',
    '{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}',
    '{',
    '',
    '"\u0000"',
  ),
);

const mcpRequest: fc.Arbitrary<Sent> = fc
  .record({
    body: jsonRpc,
    cred: credential,
    accept: fc.constantFrom('application/json, text/event-stream', 'application/json', 'text/html'),
  })
  .map(({ body, cred, accept }) => ({
    method: 'POST',
    path: '/mcp',
    headers: { ...cred, accept, 'content-type': 'application/json' },
    body,
  }));

const oddRequest: fc.Arbitrary<Sent> = fc
  .constantFrom(
    '/v1/nope',
    '/v1/entities/%FF',
    `/v1/entities/${'A'.repeat(200)}`,
    '/v1/../etc/passwd',
    '/%00',
    '/v1/sample?limit=5&limit=6',
    '/api/v1/billing/balance?x=1',
  )
  .chain((path) =>
    fc
      .record({ cred: credential, method: fc.constantFrom('GET', 'HEAD', 'POST', 'DELETE', 'PUT') })
      .map(({ cred, method }) => ({ method, path, headers: cred })),
  );

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function send(r: Sent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, method: r.method, path: r.path, headers: { host: 'fuzz', ...r.headers }, agent },
      (res) => {
        // An event stream does not end: its head is the answer.
        if (String(res.headers['content-type']).startsWith('text/event-stream')) {
          res.destroy();
          resolve({ status: res.statusCode!, headers: res.headers, body: '' });
          return;
        }
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(r.body);
  });
}

/** Ledger rows and their sum, over the fuzz's workspaces. */
async function ledger(): Promise<string> {
  const { rows } = await t.db.pool.query<{ n: number; sum: number }>(
    'SELECT count(*)::int AS n, coalesce(sum(amount), 0)::int AS sum FROM credit_ledger WHERE workspace_id = ANY($1)',
    [workspaces],
  );
  return `${rows[0]!.n} rows, sum ${rows[0]!.sum}`;
}

function checkAnswer(r: Sent, a: Answer): void {
  const what = `${r.method} ${r.path.slice(0, 200)} -> ${a.status} ${a.body.slice(0, 300)}`;
  assert.ok(a.status < 500, what);
  if (r.method === 'HEAD' || a.status === 202 || a.status === 204) return;
  if (r.path.startsWith('/mcp') && (a.status === 200 || a.headers['content-type']?.includes('json'))) {
    const frames = [JSON.parse(a.body)].flat() as Array<{ error?: { data?: { request_id?: string } } }>;
    for (const f of frames) if (f.error) assert.match(f.error.data?.request_id ?? '', /^req_/, what);
    return;
  }
  if (a.status < 400) {
    assert.match(String(a.headers['content-type']), /json|csv|event-stream/, what);
    return;
  }
  const body = JSON.parse(a.body) as { error: { code: string; message: string; request_id: string } };
  assert.equal(typeof body.error.code, 'string', what);
  assert.equal(typeof body.error.message, 'string', what);
  assert.equal(body.error.request_id, a.headers['x-request-id'], what);
}

describe('fuzzed requests', () => {
  it(`no 5xx, every answer enveloped, nothing charged by a refusal (${SECONDS} s, seed ${SEED})`, async () => {
    let sent = 0;
    const statuses: Record<number, number> = {};
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          { weight: 6, arbitrary: restRequest },
          { weight: 3, arbitrary: mcpRequest },
          { weight: 1, arbitrary: oddRequest },
        ),
        async (r) => {
          const before = await ledger();
          const a = await send(r);
          sent++;
          statuses[a.status] = (statuses[a.status] ?? 0) + 1;
          checkAnswer(r, a);
          if (a.status >= 400 && a.status !== 404)
            assert.equal(await ledger(), before, `${r.method} ${r.path} -> ${a.status}`);
        },
      ),
      {
        seed: SEED,
        numRuns: Number.MAX_SAFE_INTEGER,
        interruptAfterTimeLimit: SECONDS * 1000,
        markInterruptAsFailure: false,
      },
    );
    process.stderr.write(`fuzz: ${sent} requests, seed ${SEED}, by status ${JSON.stringify(statuses)}\n`);
    assert.ok(sent > 100, `only ${sent} requests in ${SECONDS} s`);
    assert.equal((await t.get('/healthz')).statusCode, 200);
  });
});
