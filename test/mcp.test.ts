// The MCP transport driven by the SDK's own client over HTTP: discovery, every tool against the REST
// answer to the same question (byte for byte apart from request_id), credits, every JSON-RPC error
// with its data, and the transport rules (405, 202, ping, protocol versions, Origin).
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { findRequestLog } from '../src/accounts/request-log.js';
import { ledgerCheck } from '../src/accounts/ledger.js';
import { adjustCredits, setPerMinute } from '../src/accounts/workspaces.js';
import { originAllowed } from '../src/api/mcp/transport.js';
import { OPERATIONS } from '../src/api/operations/index.js';
import { loadConfig } from '../src/config/index.js';
import { generateDataset } from '../src/sample/index.js';
import { importRegistry } from '../src/main/importer.js';
import { testApp, type TestApp } from './support/app.js';

const ALLOWED_ORIGIN = 'https://agent.example.com';
const REQUEST_ID = /"request_id":"req_[0-9A-Za-z]{20,}"/g;

let t: TestApp;
let url: URL;
let dataDir: string;

before(async () => {
  t = await testApp({ now: '2026-03-10T12:00:00Z', env: { MCP_ALLOWED_ORIGINS: ALLOWED_ORIGIN } });
  dataDir = await mkdtemp(path.join(tmpdir(), 'rl-mcp-'));
  await generateDataset({ entities: 3000, outDir: dataDir, seed: 11, days: 5, endDate: '2026-03-09', workers: 0 });
  await importRegistry(t.db.pool, [dataDir]);
  url = new URL('/mcp', await t.app.http.listen({ host: '127.0.0.1', port: 0 }));
});
after(async () => {
  await t.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** An SDK client configured as a new user would: the URL and a key. */
async function connect(key: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'registry-lookup-tests', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { authorization: `Bearer ${key}`, ...headers } },
    }),
  );
  return client;
}

/** One raw JSON-RPC POST, for what the SDK client hides (HTTP status, headers, empty bodies). */
async function post(
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; text: string; json: () => any }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) };
}

const rpc = (method: string, params: unknown = {}, id: number | string = 1) => ({ jsonrpc: '2.0', id, method, params });
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const withoutRequestId = (text: string) => text.replaceAll(REQUEST_ID, '"request_id":"-"');

/** The JSON-RPC error a client call was refused with. */
async function refusal(call: Promise<unknown>): Promise<McpError> {
  const err = await call.then(
    () => assert.fail('expected a JSON-RPC error'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof McpError, `not a JSON-RPC error: ${String(err)}`);
  return err;
}

const remaining = async (workspaceId: string) => (await ledgerCheck(t.db.pool, workspaceId)).monthly_remaining;

describe('discovery', () => {
  it('initialize: server info, protocol 2025-11-25 by default, instructions (cost, data-use restriction)', async () => {
    const { key } = await t.workspace('developer');
    const client = await connect(key.key);
    assert.deepEqual(client.getServerVersion(), {
      name: 'registry-lookup',
      title: 'Registry Lookup',
      version: '1.0.0',
    });
    assert.deepEqual(client.getServerCapabilities(), { tools: {} });
    const instructions = client.getInstructions() ?? '';
    assert.match(instructions, /costs 1 credit/);
    assert.match(instructions, /not a consumer report/);
    assert.match(instructions, /credit, employment, insurance, housing, tenant/);
    await client.close();
  });

  it('negotiates 2025-06-18 and 2025-11-25, answers another version with the latest, needs no session', async () => {
    const { key } = await t.workspace('developer');
    for (const [asked, answered] of [
      ['2025-06-18', '2025-06-18'],
      ['2025-11-25', '2025-11-25'],
      ['2099-01-01', '2025-11-25'],
    ]) {
      const res = await post(
        rpc('initialize', { protocolVersion: asked, capabilities: {}, clientInfo: { name: 'raw', version: '0' } }),
        bearer(key.key),
      );
      assert.equal(res.status, 200);
      assert.equal(res.json().result.protocolVersion, answered);
      assert.equal(res.headers.get('mcp-session-id'), null);
    }
  });

  it('tools/list: the ten tools, each with title, actionable description, schemas and readOnlyHint', async () => {
    const { key } = await t.workspace('developer');
    const client = await connect(key.key);
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((x) => x.name),
      [
        'search_entities',
        'get_entity',
        'match_entities',
        'search_officers',
        'search_agents',
        'search_addresses',
        'list_daily_filings',
        'list_recent_filings',
        'list_new_business_leads',
        'list_changes',
        'list_snapshots',
        'get_snapshot',
        'list_watch_events',
      ],
    );
    for (const tool of tools) {
      const op = OPERATIONS.find((o) => o.tool === tool.name)!;
      assert.equal(tool.title, op.title);
      assert.equal(tool.description, op.description);
      assert.match(tool.description ?? '', /Costs 1 credit/);
      assert.match(tool.description ?? '', /not a consumer report/);
      assert.equal(tool.inputSchema.type, 'object');
      assert.equal(tool.outputSchema?.type, 'object');
      assert.deepEqual(
        tool.outputSchema?.required,
        op.kind === 'list' ? ['data', 'pagination', 'meta'] : ['data', 'meta'],
      );
      assert.deepEqual(tool.annotations, { readOnlyHint: true, openWorldHint: false });
    }
    // The other header of the spec works as well.
    const other = new Client({ name: 'x-api-key', version: '1.0.0' });
    await other.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { 'x-api-key': key.key } } }));
    assert.equal((await other.listTools()).tools.length, 13);
    await other.close();
    const leads = tools.find((x) => x.name === 'list_new_business_leads')!;
    assert.deepEqual(Object.keys(leads.inputSchema.properties ?? {}), [
      'county',
      'city',
      'entity_type',
      'date_from',
      'date_to',
      'limit',
      'offset',
      'cursor',
    ]);
    assert.equal(leads.inputSchema.additionalProperties, false);
    const search = tools.find((x) => x.name === 'search_entities')!.inputSchema.properties as Record<
      string,
      Record<string, unknown>
    >;
    assert.equal(search.status?.type, 'array'); // multi-select: agents send a list
    assert.deepEqual([search.limit?.default, search.limit?.maximum], [25, 500]);
    assert.deepEqual(tools.find((x) => x.name === 'get_entity')!.inputSchema.required, ['document_number']);
    await client.close();
  });
});

describe('tools answer as REST does', () => {
  it('every tool: structuredContent and its text are the REST body, byte for byte apart from request_id', async () => {
    const { key } = await t.workspace('lead_feed');
    const rest = async (route: string) => {
      const res = await t.get(`/v1${route}`, key.key);
      assert.equal(res.statusCode, 200, res.body);
      return res;
    };
    // Questions about what the imported dataset holds.
    const hit = (await rest('/entities/search?sort=date_oldest&limit=1')).json().data[0];
    const detail = (await rest(`/entities/${hit.document_number}`)).json().data;
    const officer = (await rest('/officers/search?name=a&limit=1')).json().data[0];
    const agent = (await rest('/agents/search?name=a&limit=1')).json().data[0];
    const lead = (await rest('/leads/new-businesses?limit=1')).json().data[0];
    assert.ok(hit && detail && officer && agent && lead, 'the dataset has entities, officers, agents and leads');

    const questions: Array<[string, Record<string, unknown>, string]> = [
      [
        'search_entities',
        { name: hit.entity_name, status: ['active', 'inactive'], facets: ['status', 'entity_type'], limit: 5 },
        `/entities/search?name=${encodeURIComponent(hit.entity_name)}` +
          '&status=active,inactive&facets=status&facets=entity_type&limit=5',
      ],
      [
        'search_entities',
        { principal_city: hit.principal_city, sort: 'name_asc', limit: 700, offset: 3 },
        `/entities/search?principal_city=${encodeURIComponent(hit.principal_city)}&sort=name_asc&limit=700&offset=3`,
      ],
      [
        'get_entity',
        { document_number: hit.document_number.toLowerCase() },
        `/entities/${hit.document_number.toLowerCase()}`,
      ],
      [
        'search_officers',
        { name: officer.officer_name, limit: 10 },
        `/officers/search?name=${encodeURIComponent(officer.officer_name)}&limit=10`,
      ],
      ['search_agents', { name: agent.agent_name }, `/agents/search?name=${encodeURIComponent(agent.agent_name)}`],
      ['search_addresses', { query: agent.zip }, `/addresses/search?query=${agent.zip}`],
      ['list_daily_filings', { date: '2026-03-09' }, '/filings/daily?date=2026-03-09'],
      ['list_daily_filings', {}, '/filings/daily'],
      ['list_recent_filings', { days: 30, limit: 20, offset: 5 }, '/filings/recent?days=30&limit=20&offset=5'],
      [
        'list_new_business_leads',
        { county: lead.county, date_from: '2026-01-01', date_to: '2026-03-09', limit: 10 },
        `/leads/new-businesses?county=${encodeURIComponent(lead.county)}` +
          '&date_from=2026-01-01&date_to=2026-03-09&limit=10',
      ],
      [
        'list_new_business_leads',
        { city: lead.city, entity_type: lead.entity_type },
        `/leads/new-businesses?city=${encodeURIComponent(lead.city)}&entity_type=${lead.entity_type}`,
      ],
    ];
    const client = await connect(key.key);
    // From here the SDK client checks every structuredContent against the tool's output schema.
    await client.listTools();
    const asked = new Set<string>();
    for (const [tool, args, route] of questions) {
      const expected = (await rest(route)).body;
      const result = (await client.callTool({ name: tool, arguments: args })) as CallToolResult;
      assert.equal(result.isError, undefined);
      const text = (result.content[0] as { type: string; text: string }).text;
      assert.equal(withoutRequestId(text), withoutRequestId(expected), `${tool} ${JSON.stringify(args)}`);
      assert.equal(JSON.stringify(result.structuredContent), text);
      assert.ok((JSON.parse(expected) as { data: unknown }).data, 'non-trivial answer');
      assert.match(
        (result.structuredContent as { meta: { request_id: string } }).meta.request_id,
        /^req_[0-9A-Za-z]{20,}$/,
      );
      asked.add(tool);
    }
    assert.equal(asked.size, 8);
    await client.close();
  });

  it('an entity that does not exist is an isError result carrying the REST 404 body and costs its credit', async () => {
    const { workspace, key } = await t.workspace('developer');
    const client = await connect(key.key);
    await client.listTools();
    const before = await remaining(workspace.id);
    const result = (await client.callTool({
      name: 'get_entity',
      arguments: { document_number: 'ZZ0000000' },
    })) as CallToolResult;
    assert.equal(result.isError, true);
    assert.equal(result.structuredContent, undefined);
    const text = (result.content[0] as { text: string }).text;
    const rest = await t.get('/v1/entities/ZZ0000000', key.key);
    assert.equal(rest.statusCode, 404);
    assert.equal(withoutRequestId(text), withoutRequestId(rest.body));
    assert.equal(JSON.parse(text).error.code, 'not_found');
    assert.equal(await remaining(workspace.id), before - 2);
    await client.close();
  });
});

describe('credits', () => {
  it('10 tool calls spend 10 credits; initialize, tools/list, ping, notifications none; shared with REST', async () => {
    const { workspace, key } = await t.workspace('developer');
    const start = await remaining(workspace.id);
    const client = await connect(key.key);
    await client.listTools();
    await client.listTools();
    await client.ping();
    assert.equal(await remaining(workspace.id), start);
    for (let i = 0; i < 10; i++) await client.callTool({ name: 'list_recent_filings', arguments: { days: 1 + i } });
    assert.equal(await remaining(workspace.id), start - 10);
    assert.equal((await t.get('/v1/filings/recent', key.key)).statusCode, 200);
    await client.callTool({ name: 'search_agents', arguments: { name: 'smith' } });
    assert.equal(await remaining(workspace.id), start - 12);
    const usage = (await t.get('/v1/account/usage', key.key)).json().data;
    assert.equal(usage.events_count, 12);
    assert.ok((await ledgerCheck(t.db.pool, workspace.id)).consistent);
    await client.close();
  });

  it('the request log records each /mcp request once, with its surface and credits', async () => {
    const { workspace, key } = await t.workspace('developer');
    const listed = await post(rpc('tools/list'), bearer(key.key));
    const called = await post(rpc('tools/call', { name: 'list_recent_filings', arguments: {} }), bearer(key.key));
    const refused = await post(rpc('tools/list'), bearer('svc_live_00000000000000000000000000000000'));
    await t.app.requestLog.flush();
    const row = async (res: { headers: Headers }) => findRequestLog(t.db.pool, res.headers.get('x-request-id')!);
    assert.deepEqual(
      [await row(listed), await row(called), await row(refused)].map((r) => [
        r?.surface,
        r?.route,
        r?.status,
        r?.credits,
        r?.workspace_id,
      ]),
      [
        ['mcp', '/mcp', 200, 0, workspace.id],
        ['mcp', '/mcp', 200, 1, workspace.id],
        ['mcp', '/mcp', 401, 0, null],
      ],
    );
  });
});

describe('errors', () => {
  it('-32001 with HTTP 401 for a missing, wrong or conflicting key, on every method', async () => {
    const { key } = await t.workspace('developer');
    const cases: Array<Record<string, string>> = [
      {},
      bearer('svc_live_00000000000000000000000000000000'),
      { ...bearer(key.key), 'x-api-key': 'svc_live_00000000000000000000000000000000' },
      { 'x-api-key': 'nope' },
    ];
    for (const headers of cases) {
      for (const message of [
        rpc('initialize', {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'raw', version: '0' },
        }),
        rpc('tools/list', {}, 'a'),
        rpc('tools/call', { name: 'get_entity', arguments: {} }, 7),
      ]) {
        const res = await post(message, headers);
        assert.equal(res.status, 401);
        assert.equal(res.headers.get('www-authenticate'), 'Bearer');
        assert.deepEqual(res.json(), {
          jsonrpc: '2.0',
          id: message.id,
          error: {
            code: -32001,
            message: 'Invalid or missing API key.',
            data: { code: 'unauthorized', request_id: res.headers.get('x-request-id') },
          },
        });
      }
    }
    const notification = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    assert.equal(notification.status, 401);
    assert.equal(notification.json().id, null);
    // The SDK client sees the refusal as an HTTP error carrying the same frame.
    const err = await connect('svc_live_00000000000000000000000000000000').then(
      () => assert.fail('connected without a valid key'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof StreamableHTTPError);
    assert.equal(err.code, 401);
    assert.match(err.message, /-32001/);
  });

  it('-32003 mcp_disabled with HTTP 403 for a plan without MCP', async () => {
    const { key } = await t.workspace('free_trial');
    const res = await post(rpc('tools/list'), bearer(key.key));
    assert.equal(res.status, 403);
    const { error } = res.json();
    assert.equal(error.code, -32003);
    assert.deepEqual(error.data, { code: 'mcp_disabled', request_id: res.headers.get('x-request-id') });
    assert.match(error.message, /MCP/);
  });

  it('-32003 forbidden for the lead feed without the plan, at no cost', async () => {
    const { workspace, key } = await t.workspace('developer');
    const client = await connect(key.key);
    const before = await remaining(workspace.id);
    const err = await refusal(client.callTool({ name: 'list_new_business_leads', arguments: { county: 'Orange' } }));
    assert.equal(err.code, -32003);
    assert.equal((err.data as { code: string }).code, 'forbidden');
    assert.match((err.data as { request_id: string }).request_id, /^req_/);
    assert.equal(await remaining(workspace.id), before);
    await client.close();
  });

  it('-32004 with credit_balance when the credits are used up', async () => {
    const { workspace, key } = await t.workspace('mcp_starter');
    await adjustCredits(t.db.pool, workspace.id, -1000, 'test: used up', t.clock);
    const res = await post(rpc('tools/call', { name: 'list_recent_filings', arguments: {} }), bearer(key.key));
    assert.equal(res.status, 200);
    const { error } = res.json();
    assert.equal(error.code, -32004);
    const toNextCycle = Math.ceil((Date.parse('2026-04-01T00:00:00Z') - t.clock.now().getTime()) / 1000);
    assert.deepEqual(error.data, {
      code: 'rate_limited',
      request_id: res.headers.get('x-request-id'),
      credit_balance: 0,
      retry_after: toNextCycle,
    });
    assert.match(error.message, /quota exhausted/);
    // Still free to look around.
    assert.equal((await post(rpc('tools/list'), bearer(key.key))).status, 200);
  });

  it('-32029 with retry_after past the per-minute limit, which only tools/call counts', async () => {
    const { workspace, key } = await t.workspace('developer');
    await setPerMinute(t.db.pool, workspace.id, 2);
    const client = await connect(key.key);
    for (let i = 0; i < 5; i++) await client.listTools();
    await client.callTool({ name: 'list_recent_filings', arguments: {} });
    await client.callTool({ name: 'list_recent_filings', arguments: {} });
    const before = await remaining(workspace.id);
    const res = await post(rpc('tools/call', { name: 'list_recent_filings', arguments: {} }), bearer(key.key));
    const { error } = res.json();
    assert.equal(error.code, -32029);
    assert.deepEqual(error.data, {
      code: 'rate_limited',
      request_id: res.headers.get('x-request-id'),
      retry_after: 60,
    });
    assert.match(error.message, /Retry in 60 seconds/);
    assert.equal(res.headers.get('x-ratelimit-remaining'), '0');
    assert.equal(res.headers.get('retry-after'), '60');
    assert.equal(await remaining(workspace.id), before);
    await client.listTools(); // free requests pass a full window
    t.clock.advance(60_000);
    await client.callTool({ name: 'list_recent_filings', arguments: {} });
    await client.close();
  });

  it('-32602 with the same details as REST for invalid arguments, at no cost', async () => {
    const { workspace, key } = await t.workspace('developer');
    const client = await connect(key.key);
    const before = await remaining(workspace.id);
    const cases: Array<[string, Record<string, unknown>, string]> = [
      [
        'search_entities',
        { nam: 'acme', limit: 0, status: ['active', 'q'] },
        '/entities/search?nam=acme&limit=0&status=active,q',
      ],
      ['get_entity', { document_number: 'AB-1' }, '/entities/AB-1'],
      ['list_recent_filings', { days: 91, offset: -1 }, '/filings/recent?days=91&offset=-1'],
      ['list_daily_filings', { date: '2026-02-30' }, '/filings/daily?date=2026-02-30'],
      ['search_addresses', {}, '/addresses/search'],
    ];
    for (const [tool, args, route] of cases) {
      const err = await refusal(client.callTool({ name: tool, arguments: args }));
      const rest = (await t.get(`/v1${route}`, key.key)).json().error;
      assert.equal(err.code, -32602);
      assert.equal(rest.code, 'bad_request');
      const data = err.data as { code: string; details: Record<string, string>; request_id: string };
      assert.deepEqual(data.details, rest.details, tool);
      assert.equal(data.code, 'bad_request');
      assert.match(data.request_id, /^req_/);
    }
    assert.equal(await remaining(workspace.id), before);
    await client.close();
  });

  it('-32601 for an unknown tool (a JSON-RPC error, not a result) and an unknown method, at no cost', async () => {
    const { workspace, key } = await t.workspace('developer');
    const before = await remaining(workspace.id);
    const client = await connect(key.key);
    const err = await refusal(client.callTool({ name: 'get_account_usage', arguments: {} }));
    assert.equal(err.code, -32601);
    assert.match((err.data as { request_id: string }).request_id, /^req_/);
    const res = await post(rpc('resources/list'), bearer(key.key));
    assert.equal(res.status, 200);
    assert.equal(res.json().error.code, -32601);
    assert.deepEqual(res.json().error.data, { request_id: res.headers.get('x-request-id') });
    // Methods named like an object's own properties are unknown methods too, answered with the request's id.
    for (const method of ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty']) {
      const named = await post(rpc(method, {}, `m-${method}`), bearer(key.key));
      assert.equal(named.status, 200, method);
      assert.equal(named.json().id, `m-${method}`, method);
      assert.equal(named.json().error.code, -32601, method);
    }
    assert.equal(await remaining(workspace.id), before);
    await client.close();
  });

  it('-32603 when the operation fails, at no cost', async () => {
    const { workspace, key } = await t.workspace('developer');
    const client = await connect(key.key);
    const before = await remaining(workspace.id);
    const search = t.app.services.search;
    const agents = search.agents;
    search.agents = async () => {
      throw new Error('the database went away');
    };
    try {
      const err = await refusal(client.callTool({ name: 'search_agents', arguments: { name: 'smith' } }));
      assert.equal(err.code, -32603);
      assert.equal((err.data as { code: string }).code, 'internal_error');
      assert.match((err.data as { request_id: string }).request_id, /^req_/);
      assert.doesNotMatch(err.message, /database went away/);
    } finally {
      search.agents = agents;
    }
    assert.equal(await remaining(workspace.id), before);
    await client.close();
  });
});

describe('transport', () => {
  it('GET and DELETE answer 405', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(url, { method, headers: { accept: 'text/event-stream' } });
      assert.equal(res.status, 405);
      assert.equal(res.headers.get('allow'), 'POST');
      const body = (await res.json()) as { error: { data: { request_id: string } } };
      assert.equal(body.error.data.request_id, res.headers.get('x-request-id'));
    }
  });

  it('notifications answer 202 without a body; ping answers {}; every answer carries rate-limit headers', async () => {
    const { key } = await t.workspace('developer');
    const note = await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, bearer(key.key));
    assert.equal(note.status, 202);
    assert.equal(note.text, '');
    const ping = await post(rpc('ping', undefined, 'p'), { ...bearer(key.key), 'mcp-protocol-version': '2025-06-18' });
    assert.equal(ping.status, 200);
    assert.deepEqual(ping.json(), { jsonrpc: '2.0', id: 'p', result: {} });
    for (const res of [note, ping]) {
      assert.equal(res.headers.get('x-ratelimit-limit'), '60');
      assert.match(res.headers.get('ratelimit') ?? '', /^"default";r=\d+;t=\d+$/);
    }
  });

  it('an unsupported MCP-Protocol-Version is a 400', async () => {
    const { key } = await t.workspace('developer');
    const res = await post(rpc('tools/list'), { ...bearer(key.key), 'mcp-protocol-version': '2024-01-01' });
    assert.equal(res.status, 400);
    const { error } = res.json();
    assert.equal(error.code, -32600);
    assert.match(error.message, /2025-06-18/);
    assert.equal(error.data.request_id, res.headers.get('x-request-id'));
    for (const version of ['2025-06-18', '2025-11-25']) {
      assert.equal(
        (await post(rpc('tools/list'), { ...bearer(key.key), 'mcp-protocol-version': version })).status,
        200,
      );
    }
  });

  it('a present Origin must be allowed (MCP_ALLOWED_ORIGINS); no Origin is fine', async () => {
    const { key } = await t.workspace('developer');
    const refused = await post(rpc('tools/list'), { ...bearer(key.key), origin: 'https://evil.example.com' });
    assert.equal(refused.status, 403);
    assert.deepEqual(refused.json().error, {
      code: -32003,
      message: 'Origin https://evil.example.com is not allowed.',
      data: { code: 'forbidden', request_id: refused.headers.get('x-request-id') },
    });
    assert.equal((await post(rpc('tools/list'), { ...bearer(key.key), origin: ALLOWED_ORIGIN })).status, 200);
    assert.equal((await post(rpc('tools/list'), bearer(key.key))).status, 200);
  });

  it('MCP_ALLOWED_ORIGINS: origins normalized, `*` for any, anything else refused at start', () => {
    const origins = (v: string) => loadConfig({ MCP_ALLOWED_ORIGINS: v }).mcpAllowedOrigins;
    assert.deepEqual(origins(''), []);
    assert.deepEqual(origins(' https://App.example.com/ , http://localhost:6274'), [
      'https://app.example.com',
      'http://localhost:6274',
    ]);
    for (const bad of ['app.example.com', 'https://app.example.com/path', 'ftp://app.example.com'])
      assert.throws(() => origins(bad), /MCP_ALLOWED_ORIGINS/);
    assert.equal(originAllowed(undefined, []), true);
    assert.equal(originAllowed('https://app.example.com', []), false);
    assert.equal(originAllowed('https://app.example.com', origins('https://app.example.com:443')), true);
    assert.equal(originAllowed('null', origins('https://app.example.com')), false);
    assert.equal(originAllowed('https://anything.example', ['*']), true);
  });

  it('malformed requests get a JSON-RPC error naming the request', async () => {
    const { key } = await t.workspace('developer');
    const cases: Array<[unknown, Record<string, string>, number, number]> = [
      ['{"jsonrpc":', {}, 400, -32700],
      // Valid JSON that is no JSON-RPC message: an invalid request, not a parse error.
      [{ hello: 'world' }, {}, 400, -32600],
      // Invalid params of the methods the SDK validates itself: -32602, never -32603.
      [rpc('initialize', { protocolVersion: 5 }), {}, 200, -32602],
      [rpc('tools/list', { cursor: 5 }), {}, 200, -32602],
      [rpc('tools/list'), { 'content-type': 'text/plain' }, 415, -32600],
      [rpc('tools/list'), { accept: 'application/json' }, 406, -32600],
      [rpc('tools/call', { arguments: {} }), {}, 200, -32602],
      [JSON.stringify(rpc('tools/list', { padding: 'x'.repeat(1_100_000) })), {}, 413, -32600],
    ];
    for (const [body, headers, status, code] of cases) {
      const res = await post(body, { ...bearer(key.key), ...headers });
      assert.equal(res.status, status, res.text);
      assert.equal(res.json().error.code, code);
      assert.equal(res.json().error.data.request_id, res.headers.get('x-request-id'));
    }
    const untyped = await t.app.http.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...bearer(key.key), accept: 'application/json, text/event-stream' },
      payload: JSON.stringify(rpc('ping')),
    });
    assert.equal(untyped.headers['content-type'], 'application/json; charset=utf-8');
    assert.deepEqual([untyped.statusCode, untyped.json().error.code], [415, -32600]);
  });
});
