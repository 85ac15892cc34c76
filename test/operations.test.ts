// The eight operations over REST on a crafted registry: shapes against the spec (and the served
// OpenAPI document), ranking and tiebreaks, filters, validation, clamping, totals, CSV, keyless routes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { LightMyRequestResponse } from 'fastify';
import { setPerMinute } from '../src/accounts/workspaces.js';
import { Contract } from './support/contract.js';
import { loadFixture } from './support/fixture.js';
import { testApp, type TestApp } from './support/app.js';

let t: TestApp;
let contract: Contract;
let pro: string; // pro plan: CSV, no lead feed
let dev: string; // developer: no CSV
let leads: string; // lead_feed plan

before(async () => {
  t = await testApp({ now: '2026-03-10T12:00:00Z' });
  await loadFixture(t.db.pool);
  const doc = (await t.get('/v1/openapi.json')).json();
  contract = new Contract(doc);
  for (const [plan, set] of [
    ['pro', (k: string) => (pro = k)],
    ['developer', (k: string) => (dev = k)],
    ['lead_feed', (k: string) => (leads = k)],
  ] as const) {
    const w = await t.workspace(plan);
    await setPerMinute(t.db.pool, w.workspace.id, 100_000); // the per-minute limit is not under test here
    set(w.key.key);
  }
});
after(() => t.close());

/** GET with a key, checked against the OpenAPI document whatever the status. */
async function get(
  url: string,
  key: string | null = pro,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  const res = await t.get(url, key ?? undefined, headers);
  contract.check(url, res);
  return res;
}

const docs = (res: LightMyRequestResponse): string[] =>
  res.json().data.map((h: { document_number: string }) => h.document_number);
const count = async (sql: string, params: unknown[] = []): Promise<number> =>
  (await t.db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`, params)).rows[0]!.n;

describe('OpenAPI', () => {
  it('is a valid OpenAPI 3.1 document, version 1.0.0, describing every route', async () => {
    const doc = (await t.get('/v1/openapi.json')).json();
    const result = await new Validator().validate(doc);
    assert.ok(result.valid, JSON.stringify(result.errors));
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(doc.info.version, '1.0.0');
    for (const p of [
      '/entities/search',
      '/entities/{document_number}',
      '/officers/search',
      '/agents/search',
      '/addresses/search',
      '/filings/daily',
      '/filings/recent',
      '/leads/new-businesses',
      '/leads/new-businesses/daily.csv',
      '/changes',
      '/changes/stream',
      '/account/usage',
      '/sample',
      '/public/search',
      '/status',
    ]) {
      assert.ok(doc.paths[p]?.get, `missing ${p}`);
    }
    assert.deepEqual((await t.get('/api/v1/openapi.json')).json(), doc);
  });

  it('groups every operation under one declared tag, so the reference has no "default" group', async () => {
    const doc = (await t.get('/v1/openapi.json')).json();
    const declared = (doc.tags as Array<{ name: string; description: string }>).map((tag) => tag.name);
    assert.deepEqual(declared, [...new Set(declared)]);
    const used = new Set<string>();
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, { tags?: string[] }>>))
      for (const [method, op] of Object.entries(item)) {
        if (method === 'servers') continue;
        assert.equal(op.tags?.length, 1, `${method} ${path}`);
        assert.ok(declared.includes(op.tags[0]!), `${method} ${path}: ${op.tags[0]}`);
        used.add(op.tags[0]!);
      }
    assert.deepEqual([...used].sort(), [...declared].sort(), 'every declared tag holds an operation');
    assert.equal(doc.paths['/entities/search'].get.tags[0], 'Entities');
    assert.equal(doc.paths['/billing/checkout-credit-pack'].post.tags[0], 'Billing');
  });
});

describe('entity search', () => {
  it('ranks exact, then prefix, then similarity; ties by filing date then document number', async () => {
    const res = await get('/v1/entities/search?name=Acme%20Holdings%20LLC');
    assert.equal(res.statusCode, 200);
    // exact (whole name), exact without the legal form, prefix (equal similarity: newer first), similarity.
    assert.deepEqual(docs(res), [
      'L20000000001',
      'P21000000002',
      'L22000000003',
      'L19000000004',
      'L23000000005',
      'L23000000006',
    ]);
    const twins = await get('/v1/entities/search?name=twin%20peaks');
    assert.deepEqual(docs(twins), ['L23000000009', 'L23000000010']);
  });

  it('finds the intended entity despite a typo, punctuation, case, legal-form spelling or a dropped word', async () => {
    for (const [q, doc] of [
      ['acme holdngs llc', 'L20000000001'],
      ['ACME HOLDINGS L.L.C.', 'L20000000001'],
      ['acme holdings incorporated', 'P21000000002'],
      ["O'Brien and Sons LLC", 'L23000000007'],
      ['global widgets corp', 'F20000000011'],
      ['widgets global', 'F20000000011'],
      ['sunshin foundation', 'N18000000008'],
    ] as const) {
      const found = docs(await get(`/v1/entities/search?name=${encodeURIComponent(q)}`));
      assert.ok(found.includes(doc), `${q}: ${found.join(', ')}`);
    }
  });

  it('prefers the legal form asked for among names alike but for it, else the newer', async () => {
    // ACME HOLDINGS LLC (2020) and ACME HOLDINGS, INC. (2021): equally similar to a mistyped name.
    const firstTwo = async (q: string): Promise<string[]> =>
      docs(await get(`/v1/entities/search?name=${encodeURIComponent(q)}`)).slice(0, 2);
    assert.deepEqual(await firstTwo('acme holdngs llc'), ['L20000000001', 'P21000000002']);
    assert.deepEqual(await firstTwo('acme holdngs incorporated'), ['P21000000002', 'L20000000001']);
    assert.deepEqual(await firstTwo('acme holdngs'), ['P21000000002', 'L20000000001']);
    assert.deepEqual(await firstTwo('holdngs acme l.l.c.'), ['L20000000001', 'P21000000002']);
  });

  it('reports the exact total, has_more and the clamped limit', async () => {
    // ACME, ACMEE (one edit) and every word beginning ACME: six entities.
    const page = (await get('/v1/entities/search?name=acme&limit=2&offset=1')).json();
    const { next_cursor: next, ...pagination } = page.pagination;
    assert.deepEqual(pagination, { limit: 2, offset: 1, total: 6, has_more: true });
    assert.match(next, /^[\w-]+\.[\w-]+$/);
    const last = (await get('/v1/entities/search?name=acme&limit=2&offset=4')).json();
    assert.deepEqual(last.pagination, { limit: 2, offset: 4, total: 6, has_more: false, next_cursor: null });
    assert.equal(last.data.length, 2);
    assert.equal((await get('/v1/entities/search?name=acme&offset=10')).json().data.length, 0);
    const all = (await get('/v1/entities/search?limit=100000')).json();
    assert.equal(all.pagination.limit, 500);
    assert.equal(all.pagination.total, await count('registry.entities'));
    assert.equal(all.meta.dataset_status, 'live');
  });

  it('applies every filter, multi-selects in both forms, sorts and facets', async () => {
    const q = async (query: string): Promise<string[]> => docs(await get(`/v1/entities/search?${query}`));
    assert.deepEqual(await q('status=d'), ['N18000000008']);
    assert.deepEqual(await q('status=x'), []);
    assert.deepEqual(await q('status=a&status=i&limit=500'), await q('status=a,i&limit=500'));
    assert.deepEqual((await q('status=inactive')).sort(), ['L22000000003', 'N18000000008']);
    assert.deepEqual((await q('entity_type=DOMP,FORP')).sort(), ['F20000000011', 'P21000000002', 'P26000000013']);
    assert.deepEqual(await q('principal_city=miami&sort=date_oldest'), [
      'L20000000001',
      'L22000000003',
      'L23000000005',
      'P26000000013',
    ]);
    assert.equal((await q('principal_state=fl&limit=500')).length, 13);
    assert.deepEqual(await q('filed_after=2023-05-05&filed_before=2023-07-07'), [
      'L23000000005',
      'L23000000009',
      'L23000000010',
    ]);
    assert.deepEqual(await q('doc_number_prefix=l2&sort=name_asc'), [
      'L22000000003',
      'L20000000001',
      'L23000000006',
      'L23000000005',
      'L26000000012',
      'L23000000007',
      'L23000000009',
      'L23000000010',
    ]);
    assert.deepEqual((await q('officer_name=john%20smith')).sort(), ['L20000000001', 'L23000000007']);
    assert.deepEqual((await q('ra_name=corporation%20service')).sort(), [
      'L19000000004',
      'L20000000001',
      'L22000000003',
      'L26000000012',
    ]);
    assert.deepEqual(await q('state=GA'), []);
    // No entity is on another state's registry, with or without a name: the total says so too.
    for (const query of ['state=GA', 'state=GA&name=a', 'state=GA&status=active']) {
      assert.equal((await get(`/v1/entities/search?${query}`)).json().pagination.total, 0, query);
    }
    assert.equal((await q('state=fl&limit=500')).length, 13);
    assert.deepEqual(await q('name=acme&sort=name_desc&limit=3'), ['L19000000004', 'L23000000005', 'L23000000006']);
    assert.deepEqual(await q('sort=date_newest&limit=2'), ['P26000000013', 'L26000000012']);

    const faceted = (await get('/v1/entities/search?name=acme&facets=status,entity_type&facets=filing_year')).json();
    assert.deepEqual(faceted.facets.status, [
      { value: 'active', count: 5 },
      { value: 'inactive', count: 1 },
    ]);
    assert.deepEqual(faceted.facets.entity_type, [
      { value: 'FLAL', count: 5 },
      { value: 'DOMP', count: 1 },
    ]);
    assert.equal(faceted.facets.filing_year.length, 5);
    assert.equal((await get('/v1/entities/search?name=acme')).json().facets, undefined);
  });

  it('sorts by name and date with the document number breaking ties', async () => {
    const byName = docs(await get('/v1/entities/search?sort=name_asc&limit=500'));
    const names = (await get('/v1/entities/search?sort=name_asc&limit=500'))
      .json()
      .data.map((h: { entity_name: string }) => h.entity_name);
    assert.equal(byName.indexOf('L23000000009') + 1, byName.indexOf('L23000000010'));
    assert.equal(names[0], 'ACME HOLDINGS GROUP LLC');
    const byDate = (await get('/v1/entities/search?sort=date_oldest&limit=500'))
      .json()
      .data.map((h: { filing_date: string }) => h.filing_date);
    assert.deepEqual(byDate, [...byDate].sort());
  });
});

describe('entity detail', () => {
  it('returns the full EntityDetail, wrapped, with officers never carrying an address', async () => {
    const res = await get('/v1/entities/p21000000002');
    assert.equal(res.statusCode, 200);
    const d = res.json().data;
    assert.equal(d.document_number, 'P21000000002');
    assert.equal(d.entity_type_label, 'Domestic For-Profit Corporation');
    assert.equal(d.status_label, 'Active');
    assert.deepEqual(d.officers, [
      { slot: 1, title: 'P', name: 'GARCIA, MARIA L', address: null },
      { slot: 2, title: 'D', name: "O'BRIEN, SEAN", address: null },
    ]);
    assert.deepEqual(d.registered_agent, {
      name: 'GARCIA, MARIA L',
      address: { line1: '9 AGENT WAY', city: 'TAMPA', state: 'FL', postal_code: '33602' },
    });
    assert.deepEqual(d.principal_address, {
      line1: '200 BAY ST',
      line2: null,
      city: 'TAMPA',
      state: 'FL',
      postal_code: '33602',
      country: 'US',
    });
    assert.deepEqual(d.recent_filings, [
      { event_type: 'NAME_CHANGE', event_date: '2026-03-05', document_number: 'P21000000002', description: 'CORAPNC' },
    ]);
    assert.equal(d.has_more_events, false);
    assert.match(d.last_import_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('shows at most 50 recent filings, newest first, and says there are more', async () => {
    const d = (await get('/v1/entities/L20000000001')).json().data;
    assert.equal(d.recent_filings.length, 50);
    assert.equal(d.has_more_events, true);
    assert.equal(d.last_event_date, d.recent_filings[0].event_date);
    const dates = d.recent_filings.map((f: { event_date: string }) => f.event_date);
    assert.deepEqual(dates, [...dates].sort().reverse());
  });

  it('refines the inactive label from the last inactivating event', async () => {
    const d = (await get('/v1/entities/N18000000008')).json().data;
    assert.deepEqual(
      [d.status, d.status_label],
      ['inactive', 'Inactive - Administratively Dissolved for Annual Report'],
    );
  });

  it('answers 404 for an unknown document number and 400 for a malformed one', async () => {
    const missing = await get('/v1/entities/L99999999999');
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.json().error.code, 'not_found');
    for (const bad of ['L1234', 'L12345678901234', 'L2000-00001'])
      assert.equal((await get(`/v1/entities/${bad}`)).statusCode, 400, bad);
  });
});

describe('officers, agents, addresses', () => {
  it('finds an officer by either word order, one row per slot and entity', async () => {
    const res = (await get('/v1/officers/search?name=John%20Smith')).json();
    assert.deepEqual(
      res.data.map((o: { document_number: string; title_code: string }) => [o.document_number, o.title_code]),
      [
        ['L20000000001', 'MGR'],
        ['L23000000007', 'AMBR'],
      ],
    );
    assert.equal(res.data[0].officer_name, 'SMITH, JOHN A');
    assert.deepEqual(
      (await get('/v1/officers/search?name=smith%20john&title=ambr'))
        .json()
        .data.map((o: { document_number: string }) => o.document_number),
      ['L23000000007'],
    );
    assert.ok(!JSON.stringify(res).includes('SECRET'));
  });

  it('groups agents by name and ZIP with their entity counts', async () => {
    const res = (await get('/v1/agents/search?name=corporation%20service%20co')).json();
    assert.deepEqual(res.data[0], {
      agent_name: 'CORPORATION SERVICE COMPANY',
      linked_entity_count: 4,
      city: 'TAMPA',
      state: 'FL',
      zip: '33602',
    });
    assert.equal((await get('/v1/agents/search?name=maria%20garcia')).json().data[0].agent_name, 'GARCIA, MARIA L');
  });

  it('matches ZIP5 and ZIP+4 exactly and other text fuzzily, one row per address and entity', async () => {
    assert.deepEqual(docs(await get('/v1/addresses/search?query=33101')).sort(), [
      'L20000000001',
      'L22000000003',
      'L23000000005',
    ]);
    assert.deepEqual(docs(await get('/v1/addresses/search?query=33101-1234')), ['L23000000005']);
    const street = (await get('/v1/addresses/search?query=100%20Main%20Street%20Miami')).json();
    assert.deepEqual(street.data.map((a: { document_number: string }) => a.document_number).sort(), [
      'L20000000001',
      'L22000000003',
    ]);
    assert.equal(street.pagination.total, 2);
  });
});

describe('filings and leads', () => {
  it("lists a day's formations and events, newest first, and without a date the newest day", async () => {
    const day = (await get('/v1/filings/daily?date=2026-03-05')).json();
    assert.deepEqual(
      day.data.map((f: { document_number: string; filing_type: string }) => [f.document_number, f.filing_type]),
      [
        ['L26000000012', 'FORMATION'],
        ['P21000000002', 'NAME_CHANGE'],
      ],
    );
    const latest = (await get('/v1/filings/daily')).json();
    assert.deepEqual(
      latest.data.map((f: { filing_date: string }) => f.filing_date),
      ['2026-03-08'],
    );
    assert.equal(latest.pagination.limit, 50);
    assert.equal((await get('/v1/filings/daily?limit=9999')).json().pagination.limit, 500);
  });

  it('lists the last N days of filings', async () => {
    const recent = (await get('/v1/filings/recent?days=7')).json();
    assert.deepEqual(
      recent.data.map((f: { filing_date: string }) => f.filing_date),
      ['2026-03-08', '2026-03-06', '2026-03-05', '2026-03-05'],
    );
    assert.equal((await get('/v1/filings/recent?days=2')).json().pagination.total, 1);
    assert.equal((await get('/v1/filings/recent?limit=9999')).json().pagination.limit, 200);
  });

  it('serves the lead feed to lead-feed plans only, by county, city, type and inclusive dates', async () => {
    const refused = await get('/v1/leads/new-businesses', pro);
    assert.equal(refused.statusCode, 403);
    assert.equal(refused.json().error.code, 'forbidden');
    const all = (await get('/v1/leads/new-businesses?date_from=2026-03-05&date_to=2026-03-06', leads)).json();
    assert.deepEqual(all.data, [
      {
        document_number: 'P26000000013',
        entity_name: 'FRESH START INC',
        entity_type: 'DOMP',
        filing_date: '2026-03-06',
        city: 'MIAMI',
        state: 'FL',
        zip: '33130',
        county: 'Miami-Dade',
      },
      {
        document_number: 'L26000000012',
        entity_name: 'NEW VENTURE LLC',
        entity_type: 'FLAL',
        filing_date: '2026-03-05',
        city: 'ORLANDO',
        state: 'FL',
        zip: '32801',
        county: 'Orange',
      },
    ]);
    assert.deepEqual(docs(await get('/v1/leads/new-businesses?county=orange%20county&date_from=2026-01-01', leads)), [
      'L26000000012',
    ]);
    assert.deepEqual(docs(await get('/v1/leads/new-businesses?county=MIAMI-DADE&city=miami&entity_type=DOMP', leads)), [
      'P26000000013',
    ]);
    assert.deepEqual(docs(await get('/v1/leads/new-businesses?date_to=2026-03-05&date_from=2026-03-05', leads)), [
      'L26000000012',
    ]);
  });

  it('serves the enriched daily CSV of new businesses, without officer addresses', async () => {
    const res = await get('/v1/leads/new-businesses/daily.csv?date=2026-03-05', leads);
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/csv/);
    const [header, row, end] = res.body.split('\r\n');
    assert.match(header!, /^document_number,entity_name,entity_type,status,filing_date,county,/);
    assert.match(row!, /^L26000000012,NEW VENTURE LLC,FLAL,active,2026-03-05,Orange,/);
    assert.match(row!, /MGR: NGUYEN, LINH/);
    assert.equal(end, '');
    assert.equal((await get('/v1/leads/new-businesses/daily.csv?date=2026-03-05', pro)).statusCode, 403);
  });
});

describe('CSV', () => {
  it('answers CSV to plans with CSV (format=csv or Accept), with pagination headers; 403 to others', async () => {
    for (const [url, headers] of [
      ['/v1/entities/search?name=twin%20peaks&format=csv', {}],
      ['/v1/entities/search?name=twin%20peaks', { accept: 'text/csv' }],
    ] as const) {
      const res = await get(url, pro, headers);
      assert.equal(res.statusCode, 200);
      assert.deepEqual(
        [res.headers['x-total-count'], res.headers['x-limit'], res.headers['x-offset']],
        ['2', '25', '0'],
      );
      assert.equal(
        res.body.split('\r\n')[0],
        'document_number,entity_name,status,entity_type,filing_date,' +
          'principal_address_street,principal_city,principal_state,principal_zip,registered_agent_name',
      );
      assert.equal(
        res.body.split('\r\n')[1],
        'L23000000009,TWIN PEAKS LLC,active,FLAL,2023-05-05,1 MAIN ST,TAMPA,FL,33602,',
      );
    }
    const refused = await get('/v1/entities/search?name=twin%20peaks&format=csv', dev);
    assert.equal(refused.statusCode, 403);
    assert.equal(
      (await get('/v1/entities/search?name=x&format=xml', pro)).json().error.details.format,
      'unknown parameter',
    );
  });
});

describe('validation', () => {
  const long = (n: number): string => 'A'.repeat(n);
  const cases: Array<[string, string]> = [
    ['/v1/entities/search?name=', 'name'],
    [`/v1/entities/search?name=${long(201)}`, 'name'],
    ['/v1/entities/search?status=z', 'status'],
    ['/v1/entities/search?entity_type=flal', 'entity_type'],
    [`/v1/entities/search?entity_type=${long(21)}`, 'entity_type'],
    ['/v1/entities/search?state=FLA', 'state'],
    [`/v1/entities/search?principal_city=${long(81)}`, 'principal_city'],
    ['/v1/entities/search?principal_state=F', 'principal_state'],
    ['/v1/entities/search?filed_after=2023-02-30', 'filed_after'],
    ['/v1/entities/search?filed_before=01-02-2023', 'filed_before'],
    [`/v1/entities/search?doc_number_prefix=${long(21)}`, 'doc_number_prefix'],
    [`/v1/entities/search?officer_name=${long(121)}`, 'officer_name'],
    [`/v1/entities/search?ra_name=${long(121)}`, 'ra_name'],
    ['/v1/entities/search?sort=best', 'sort'],
    ['/v1/entities/search?limit=0', 'limit'],
    ['/v1/entities/search?limit=-1', 'limit'],
    ['/v1/entities/search?limit=2.5', 'limit'],
    ['/v1/entities/search?limit=ten', 'limit'],
    ['/v1/entities/search?offset=-1', 'offset'],
    ['/v1/entities/search?offset=1.5', 'offset'],
    ['/v1/entities/search?facets=county', 'facets'],
    [`/v1/entities/search?facets=${long(41)}`, 'facets'],
    ['/v1/entities/search?nam=acme', 'nam'],
    ['/v1/entities/search?name=a&name=b', 'name'],
    [`/v1/officers/search?name=${long(201)}`, 'name'],
    [`/v1/officers/search?title=${long(21)}`, 'title'],
    ['/v1/officers/search?limit=0', 'limit'],
    [`/v1/agents/search?name=${long(201)}`, 'name'],
    ['/v1/addresses/search', 'query'],
    [`/v1/addresses/search?query=${long(201)}`, 'query'],
    ['/v1/filings/daily?date=2026-13-01', 'date'],
    ['/v1/filings/daily?date=yesterday', 'date'],
    ['/v1/filings/recent?days=0', 'days'],
    ['/v1/filings/recent?days=91', 'days'],
    ['/v1/filings/recent?days=1.5', 'days'],
    ['/v1/entities/L1234', 'document_number'],
    ['/v1/account/usage?x=1', 'x'],
  ];
  for (const [url, param] of cases) {
    it(`${url.slice(0, 70)} is a 400 naming ${param}`, async () => {
      const res = await get(url);
      assert.equal(res.statusCode, 400);
      const error = res.json().error;
      assert.equal(error.code, 'bad_request');
      assert.ok(error.details?.[param], `details ${JSON.stringify(error.details)} do not name ${param}`);
    });
  }
  it('lead feed parameters: non-Florida county, lengths, UPPERCASE type, dates', async () => {
    for (const [url, param] of [
      ['/v1/leads/new-businesses?county=Cook', 'county'],
      [`/v1/leads/new-businesses?county=${long(41)}`, 'county'],
      [`/v1/leads/new-businesses?city=${long(61)}`, 'city'],
      ['/v1/leads/new-businesses?entity_type=flal', 'entity_type'],
      ['/v1/leads/new-businesses?date_from=2026-02-30', 'date_from'],
      ['/v1/leads/new-businesses?date_to=x', 'date_to'],
    ]) {
      const res = await get(url!, leads);
      assert.equal(res.statusCode, 400, url);
      assert.ok(res.json().error.details[param!], url);
    }
  });
  it('names every bad parameter of a request at once', async () => {
    const details = (await get('/v1/entities/search?limit=0&offset=-2&sort=x&bogus=1')).json().error.details;
    assert.deepEqual(Object.keys(details).sort(), ['bogus', 'limit', 'offset', 'sort']);
  });
});

describe('envelopes and keyless routes', () => {
  it('puts request_id in every body and in X-Request-Id, and answers unknown routes in the envelope', async () => {
    const ok = await get('/v1/entities/search?name=acme');
    assert.equal(ok.json().meta.request_id, ok.headers['x-request-id']);
    const unknown = await t.get('/v1/nothing/here', pro);
    assert.equal(unknown.statusCode, 404);
    assert.deepEqual(Object.keys(unknown.json().error).sort(), ['code', 'message', 'request_id']);
    assert.equal(unknown.json().error.request_id, unknown.headers['x-request-id']);
  });

  it('serves the same routes under /api/v1', async () => {
    const a = (await get('/api/v1/entities/search?name=acme%20holdings', pro)).json();
    const b = (await get('/v1/entities/search?name=acme%20holdings', pro)).json();
    assert.deepEqual(a.data, b.data);
  });

  it('keyless: sample (5 by default, 25 at most), public search (top 10) and status', async () => {
    assert.equal((await get('/v1/sample', null)).json().data.length, 5);
    assert.equal((await get('/v1/sample?limit=100', null)).json().pagination.limit, 25);
    const pub = (await get('/v1/public/search?name=acme%20holdings', null)).json();
    // Both ACME HOLDINGS entities match exactly but for the legal form: the newer first.
    assert.deepEqual(
      pub.data.slice(0, 2).map((h: { document_number: string }) => h.document_number),
      ['P21000000002', 'L20000000001'],
    );
    assert.equal(pub.pagination.limit, 10);
    assert.equal((await get('/v1/public/search', null)).statusCode, 400);
    const status = (await get('/v1/status', null)).json().data;
    assert.equal(status.dataset_status, 'live');
    assert.equal(status.newest_file_date, '2026-03-09');
  });
});
