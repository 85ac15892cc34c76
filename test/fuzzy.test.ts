// The search forgives what people type (docs/search.md, "What a query means"): each kind of typo that
// once answered nothing, a property over every kind of single edit, and the relaxed tier's total
// against a brute-force count. Generated names only.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setPerMinute } from '../src/accounts/workspaces.js';
import { addressKey, nameKey, personKey } from '../src/text/normalize.js';
import { analyzeName } from '../src/search/entities/name.js';
import { expandWords, type Term } from '../src/search/words/expansion.js';
import { testApp, type TestApp } from './support/app.js';
import { importCorps, person, type Corp } from './support/records.js';

/** The names meant by the first table of docs/search.md's examples, then names that compete with them, filed
 *  later (so a competitor alike in similarity comes first unless the query's words decide). */
const MEANT = [
  'ACOSTA CAPTION LLC',
  'OBERBRUNNER GROUP LLC.',
  'REQUEST SERVICES LLC',
  'CHRIS Q. DAVIS, L.L.C.',
  'KUTCH MOVERS, LLC',
  'UNBLINKING CAPITAL OF BOYNTON BEACH LLC',
  '6725 TAYLOR AVE, LLC',
  '63 OAK DR LLC',
  'HALVORSON QUARRY LOGISTICS INC',
  'FLINT ELECTRIC, INC.',
  'PFANNERSTILL BRIGHT HARBOR PARTNERS LLC',
];
const OTHERS = [
  'ACOSTA HOLDINGS LLC',
  'CAPTION MEDIA INC',
  'OBERBRUNNER FAMILY TRUST',
  'REQUEST DELIVERY INC',
  'DAVIS MARINE GROUP INC',
  'KUTCH AND SONS INC',
  'KUTCH MOVERS, P.A.',
  'FLINT ELECTRIC LLC',
  'UNBLINKING VENTURES LLC',
  'BOYNTON BEACH CAPITAL PARTNERS LLC',
  'TAYLOR AVE PARTNERS LLC',
  '64 OAK DR LLC',
  'OAK DRIVE HOMES LLC',
  'QUARRY LOGISTICS GROUP LLC',
  'BRIGHT HARBOR HOLDINGS LLC',
  'O&Z REALTY, LLC',
  'B&K REALTY LLC',
  'OZARK REALTY INC',
  'SAGE F. HERMAN, P.A.',
  // Names equal once normalized: the one registered as typed comes first, whichever was filed later.
  'MUSHO LLC',
  'MUSHO L.L.C.',
  'CORMIER INVESTMENTS, LLC',
  'CORMIER INVESTMENTS LLC',
  // A word dropped before the legal form: the names of the form typed come first among those it begins.
  'QUILLFEATHER ART LLC',
  'QUILLFEATHER HOLDINGS INC',
];

const entities: Corp[] = [...MEANT, ...OTHERS].map((name, i) => ({
  doc: `L2400000${String(i + 1).padStart(4, '0')}`,
  name,
  fileDate: i < MEANT.length ? '01152024' : '06012024',
  city: 'ORLANDO',
  zip: '32801',
  street: `${100 + i} PALMETTO WAY`,
  officers: [{ title: 'MGR', name: person('VANDERVORT', `ELSPETH${String.fromCharCode(65 + i)}`) }],
}));
const amend = (name: string, change: Partial<Corp>): void =>
  void Object.assign(
    entities.find((e) => e.name === name)!,
    change,
  );
// Two addresses a one-letter typo tells apart only by ranking: 2060 CREEK N meant CREEK LN, not N CREEK.
amend('B&K REALTY LLC', { street: '2060 CREEK LN' });
amend('OZARK REALTY INC', { street: '2060 N CREEK AVE' });
// A typo in the street: the house number typed ranks its own addresses before a city or a number that holds the
// typo's expansion (7681 APLM ST meant 7681 PALM ST, not 7681 PARK ST in W PALM BEACH nor 681 PALM ST).
amend('QUILLFEATHER ART LLC', { street: '7681 PALM ST UNIT 4', city: 'LAKE WALES' });
amend('QUILLFEATHER HOLDINGS INC', { street: '7681 PARK ST', city: 'W PALM BEACH' });
amend('O&Z REALTY, LLC', { street: '681 PALM ST', city: 'ATLANTA' });
// A typo in the house number: the street typed ranks its own addresses before the number's on a street one of
// whose words is an expansion (495 W 42ND ST meant 995 W 42ND ST, not 495 242ND ST).
amend('KUTCH AND SONS INC', { street: '995 W 42ND ST' });
amend('REQUEST DELIVERY INC', { street: '495 242ND ST' });
// A person of short words only, for a typo that no longer word carries.
amend('MUSHO LLC', { officers: [{ title: 'MGR', name: person('YOST', 'TOM') }] });
// Later filings come first among equals: the as-typed order has to beat that.
amend('MUSHO L.L.C.', { fileDate: '07012024' });
amend('CORMIER INVESTMENTS LLC', { fileDate: '07012024' });
const docOf = (name: string): string => entities.find((e) => e.name === name)!.doc;

let t: TestApp;
let key: string;

before(async () => {
  t = await testApp({ now: '2026-03-10T12:00:00Z' });
  await importCorps(t.db.pool, entities);
  const w = await t.workspace('pro');
  await setPerMinute(t.db.pool, w.workspace.id, 1_000_000);
  key = w.key.key;
});
after(() => t.close());

async function search(name: string): Promise<{ docs: string[]; total: number }> {
  const res = await t.get(`/v1/entities/search?${new URLSearchParams({ name })}`, key);
  assert.equal(res.statusCode, 200, res.body);
  const body = res.json() as { data: Array<{ document_number: string }>; pagination: { total: number } };
  return { docs: body.data.map((h) => h.document_number), total: body.pagination.total };
}

describe('typos that once answered nothing', () => {
  const cases: Array<[string, string, string]> = [
    ['ACOSTA CPATION LLC', 'ACOSTA CAPTION LLC', 'a transposition in a 7-letter word'],
    ['OBERBRUNNER RGOUP LLC.', 'OBERBRUNNER GROUP LLC.', 'a transposition in a 5-letter word'],
    ['REQUETS SERVICES LLC', 'REQUEST SERVICES LLC', 'a transposition at the end of a word'],
    ['CHRIS Q. DAIVS, L.L.C.', 'CHRIS Q. DAVIS, L.L.C.', 'a transposition beside an initial'],
    ['KUTCH MOVERS, LLa', 'KUTCH MOVERS, LLC', 'a typo in the legal form'],
    ['FLINT ELECTRIC, INX', 'FLINT ELECTRIC, INC.', 'a typo in another legal form'],
    ['UNBLINKING CAPITAL Ol BOYNTON BEACH LLC', 'UNBLINKING CAPITAL OF BOYNTON BEACH LLC', 'a typo in OF'],
    ['6725 TAYLOR AV, LLC', '6725 TAYLOR AVE, LLC', 'a short street type missing a letter'],
    ['63 OAK RD LLC', '63 OAK DR LLC', 'a short word transposed'],
    ['HALVORSON QUARRY LOGISTCS INC', 'HALVORSON QUARRY LOGISTICS INC', 'a deletion in a long word'],
    ['ACOSTA CAPTION TRUCKING LLC', 'ACOSTA CAPTION LLC', 'an added word'],
    ['PFANNERSTILL BRIGHT HARBR PARTNRS LLC', 'PFANNERSTILL BRIGHT HARBOR PARTNERS LLC', 'two typos'],
    ['HALVORSON QUAZZY LOGISTICS INC', 'HALVORSON QUARRY LOGISTICS INC', 'a word beyond its edits'],
  ];
  for (const [query, meant, what] of cases)
    it(`${what}: ${query} finds ${meant} first`, async () => {
      const { docs, total } = await search(query);
      assert.ok(total > 0, 'an answer');
      assert.equal(docs[0], docOf(meant));
    });

  it('the exact name still comes first, and a strict match keeps the relaxed tier out', async () => {
    const { docs, total } = await search('ACOSTA HOLDINGS LLC');
    assert.equal(docs[0], docOf('ACOSTA HOLDINGS LLC'));
    assert.equal(total, 1);
  });

  it('initials must match: O&Z REALTY is not every REALTY, and a mistyped one is the relaxed match', async () => {
    assert.deepEqual(await search('O AND Z REALTY LLC'), { docs: [docOf('O&Z REALTY, LLC')], total: 1 });
    const { docs } = await search('O AND X REALTY LLC');
    assert.ok(docs.includes(docOf('O&Z REALTY, LLC')), docs.join());
  });

  it("an address's one-letter word need not match: 2060 CREEK N finds 2060 CREEK LN", async () => {
    const res = await t.get(`/v1/addresses/search?${new URLSearchParams({ query: '2060 CREEK N' })}`, key);
    const docs = (res.json() as { data: Array<{ document_number: string }> }).data.map((h) => h.document_number);
    assert.ok(docs.includes(docOf('B&K REALTY LLC')), docs.join());
  });

  it('a typo in the street ranks the house number typed first: 7681 APLM ST finds the two at 7681', async () => {
    const res = await t.get(`/v1/addresses/search?${new URLSearchParams({ query: '7681 APLM ST' })}`, key);
    const docs = (res.json() as { data: Array<{ document_number: string }> }).data.map((h) => h.document_number);
    const atTheNumber = [docOf('QUILLFEATHER ART LLC'), docOf('QUILLFEATHER HOLDINGS INC')];
    assert.deepEqual(docs.slice(0, 2).sort(), atTheNumber.sort(), docs.join());
  });

  it('a typo in the house number ranks the street typed first: 495 W 42ND ST finds 995 W 42ND ST', async () => {
    const res = await t.get(`/v1/addresses/search?${new URLSearchParams({ query: '495 W 42ND ST' })}`, key);
    const docs = (res.json() as { data: Array<{ document_number: string }> }).data.map((h) => h.document_number);
    assert.deepEqual(docs.slice(0, 2), [docOf('KUTCH AND SONS INC'), docOf('REQUEST DELIVERY INC')]);
  });

  it('a short word one edit from a street type need not match: 681 PALM SB finds 681 PALM ST', async () => {
    const res = await t.get(`/v1/addresses/search?${new URLSearchParams({ query: '681 PALM SB' })}`, key);
    const docs = (res.json() as { data: Array<{ document_number: string }> }).data.map((h) => h.document_number);
    assert.equal(docs[0], docOf('O&Z REALTY, LLC'), docs.join());
    // Where ST is frequent (20,000 addresses or more), SB has no expansion that reaches it: it is not a term.
    const terms = await expandWords(t.db.pool, 'address_words', addressKey('681 PALM SB').words);
    assert.deepEqual(
      terms.map((term) => term.word),
      ['681', 'PALM'],
    );
  });

  it('answers nothing only when nothing is left without initials and words one edit from a weak one', async () => {
    for (const [query, meant] of [
      ['SAGE W HERMAN P', 'SAGE F. HERMAN, P.A.'],
      ['KUTCH LLCR', 'KUTCH MOVERS, LLC'],
    ]) {
      const { docs, total } = await search(query!);
      assert.ok(total > 0 && docs.includes(docOf(meant!)), `${query}: ${docs.join()}`);
    }
  });

  it('an address that begins a registered one is taken as typed: 101 PALMETTO WAY is not 102', async () => {
    const res = await t.get(`/v1/addresses/search?${new URLSearchParams({ query: '101 PALMETTO WAY' })}`, key);
    const body = res.json() as { data: Array<{ address: string }>; pagination: { total: number } };
    assert.deepEqual(
      body.data.map((h) => h.address),
      ['101 PALMETTO WAY'],
    );
    assert.equal(body.pagination.total, 1);
  });

  it('among names equal once normalized, the one registered as typed first: case aside, then punctuation', async () => {
    for (const [query, meant] of [
      ['MUSHO LLC', 'MUSHO LLC'],
      ['musho l.l.c.', 'MUSHO L.L.C.'],
      ['Cormier Investments, LLC', 'CORMIER INVESTMENTS, LLC'],
      ['CORMIER INVESTMENTS,LLC', 'CORMIER INVESTMENTS, LLC'],
      ['CORMIER  INVESTMENTS LLC', 'CORMIER INVESTMENTS LLC'],
    ]) {
      const { docs } = await search(query!);
      assert.equal(docs[0], docOf(meant!), `${query}: ${docs.join()}`);
    }
  });

  it('a name begun with a legal form typed: the names of that form first (QUILLFEATHER INC)', async () => {
    const { docs } = await search('QUILLFEATHER INC');
    assert.deepEqual(docs, [docOf('QUILLFEATHER HOLDINGS INC'), docOf('QUILLFEATHER ART LLC')]);
  });

  it("a person's name of short words only that matches nobody is taken again with their typos: YST TOM", async () => {
    for (const query of ['YST TOM', 'TOM YST']) {
      const res = await t.get(`/v1/officers/search?${new URLSearchParams({ name: query })}`, key);
      const body = res.json() as { data: Array<{ officer_name: string }>; pagination: { total: number } };
      assert.equal(body.data[0]?.officer_name, 'YOST, TOM', `${query}: ${JSON.stringify(body.data)}`);
    }
  });

  it('a name of one known word and two unknown ones answers, empty, on every search (no server error)', async () => {
    for (const [route, param] of [
      ['/v1/officers/search', 'name'],
      ['/v1/agents/search', 'name'],
      ['/v1/entities/search', 'name'],
      ['/v1/addresses/search', 'query'],
    ] as const) {
      const res = await t.get(`${route}?${new URLSearchParams({ [param]: 'vandervort qqq zzz' })}`, key);
      assert.equal(res.statusCode, 200, `${route}: ${res.body}`);
      assert.equal((res.json() as { pagination: { total: number } }).pagination.total, 0, route);
    }
  });

  it('a short word alone allows no typo: OAK is not OAT', async () => {
    assert.deepEqual(await search('OAT'), { docs: [], total: 0 });
  });
});

/** A small seeded generator (mulberry32): the same edits every run. */
function rng(seed: number): (n: number) => number {
  let a = seed;
  return (n) => {
    a = (a + 0x6d2b79f5) | 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return Math.floor((((x ^ (x >>> 14)) >>> 0) / 4294967296) * n);
  };
}

/** One edit of the given kind (0 insertion, 1 deletion, 2 substitution, 3 transposition) at a drawn place. */
function edit(word: string, kind: number, r: (n: number) => number): string {
  const letter = (not: string): string => {
    const pool = /\d/.test(not) ? '0123456789' : 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
    const c = pool[r(pool.length)]!;
    return c === not ? pool[(pool.indexOf(c) + 1) % pool.length]! : c;
  };
  const at = r(word.length);
  if (kind === 0) return word.slice(0, at) + letter(word[at]!) + word.slice(at);
  if (kind === 1 && word.length > 1) return word.slice(0, at) + word.slice(at + 1);
  if (kind === 3 && word.length > 1) {
    const i = Math.min(at, word.length - 2);
    return word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2);
  }
  return word.slice(0, at) + letter(word[at]!) + word.slice(at + 1);
}

describe('any single edit of a name finds it in the top 10', () => {
  it('every kind of edit, in every word of every name (short words, numbers and legal forms too)', async () => {
    const r = rng(50);
    let tried = 0;
    for (const name of MEANT) {
      const words = nameKey(name).norm.split(' ');
      for (let w = 0; w < words.length; w++)
        for (let kind = 0; kind < 4; kind++) {
          const changed = [...words];
          changed[w] = edit(words[w]!, kind, r);
          const query = changed.join(' ');
          const { docs } = await search(query);
          assert.ok(docs.slice(0, 10).includes(docOf(name)), `${query} (meant ${name}): ${docs.join(' ')}`);
          tried++;
        }
    }
    assert.ok(tried >= 150, `${tried} queries`);
  });
});

/** Rows of `table` whose `column` holds an expansion of all terms but one: every row, no index, no shortcut. */
async function bruteForce(table: string, column: string, terms: readonly Term[]): Promise<number> {
  const { rows } = await t.db.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM ${table} r
     WHERE (SELECT count(*) FROM jsonb_array_elements($1::jsonb) x
            WHERE EXISTS (SELECT 1 FROM jsonb_array_elements_text(x) w WHERE w = ANY(r.${column}))) >= $2`,
    [JSON.stringify(terms.map((x) => x.expansions)), terms.length - 1],
  );
  return rows[0]!.n;
}

describe('the relaxed tier', () => {
  it('finds an officer and an address by all their words but one, total counted by brute force', async () => {
    const cases = [
      // A middle name the registry does not hold, and a street type nobody has.
      ['officers', 'name', 'ELSPETHB QUINTESSA VANDERVORT', 'officer_words', personKey, 'name_words', 'officer_name'],
      ['addresses', 'query', '101 PALMETTO ZZQX', 'address_words', addressKey, 'address_words', 'address'],
    ] as const;
    for (const [route, param, query, dictionary, keyOf, column, field] of cases) {
      const res = await t.get(`/v1/${route}/search?${new URLSearchParams({ [param]: query })}`, key);
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json() as { data: Array<Record<string, string>>; pagination: { total: number } };
      const terms = await expandWords(t.db.pool, dictionary, keyOf(query).words);
      const table = route === 'officers' ? 'registry.officers' : 'registry.entities';
      assert.equal(body.pagination.total, await bruteForce(table, column, terms), query);
      assert.ok(body.pagination.total > 0, `${query} answers something`);
      const first = body.data[0]![field]!;
      assert.ok(route === 'officers' ? first.includes('ELSPETHB') : first.startsWith('101 PALMETTO'), first);
    }
  });

  it('answers a total equal to a brute-force count of the rows holding all words but one', async () => {
    const queries = [
      'ACOSTA CAPTION TRUCKING',
      'BOYNTON BEACH HOLDINGS CAPITAL',
      'QUARRY LOGISTICS BRIGHT',
      'OAK DRIVE PARTNERS',
      'HARBOR BRIGHT ZZQX',
    ];
    for (const query of queries) {
      const name = await analyzeName(t.db.pool, query);
      assert.ok(name.kind === 'words' && name.relaxed, `${query} is relaxed`);
      const { total, docs } = await search(query);
      assert.equal(total, await bruteForce('registry.entities', 'name_words', name.terms), query);
      assert.ok(total > 0 && docs.length === Math.min(total, 25), query);
    }
  });
});
