// The realistic query mix, drawn with a seed from the loaded data itself: names as registered and
// as people mistype them, first words, common words, one- and two-character queries, person names
// in either order, ZIPs and street fragments, each alone and with filters.
import type pg from 'pg';
import { Rng } from '../src/sample/random.js';
import { addressKey, nameKey, normalizeText, personKey } from '../src/text/normalize.js';
import { misspell } from './typos.js';

export interface Query {
  readonly kind: string;
  /** Path and query under /v1. */
  readonly path: string;
  /**
   * For relevance: the document number (or officer/agent name) meant, and its normalized name;
   * `namesAnother` when a changed name is itself the name (legal form aside) of other registered
   * entities, a mistyped person's name another officer's, or a mistyped address the start of another
   * entity's: those rank before the one meant as exact matches (markNamesAnother). `person`: the first and
   * last name typed, which any officer of that name meets (a person typed as users type them).
   */
  readonly expect?: {
    doc: string;
    norm: string;
    namesAnother?: boolean;
    /** A dropped word's: the other names its words and one more make up (markAlike), when more than a page. */
    alike?: number;
    address?: string;
    person?: string[];
  };
}

/** Kinds whose query is a registered name changed (a typo, a dropped or swapped word). */
const CHANGED_KINDS = new Set(['typo', 'dropped_word', 'swapped_words', 'typo_any', 'typo_two', 'added_word']);

/** The bench's own stream of the generator's seeded random numbers. */
const BENCH_STREAM = 100;
/** The typo model's index in that stream: its draws leave the older kinds' queries as they were. */
const TYPO_INDEX = 2;
/** People as users type them: a stream of its own, so the kinds drawn before are drawn as they were. */
const PEOPLE_INDEX = 3;
/** Addresses with an edit in the street or in the house number: a stream of their own, for the same reason. */
const ADDRESS_INDEX = 4;
/** A word of a street address that is all letters (a street name, a type, a directional): a street's letters. */
const LETTERS_ONLY = /^[A-Z]+$/;
/** A house number: the address's first word, all digits. */
const HOUSE_NUMBER = /^\d+$/;

interface Sampled {
  document_number: string;
  name: string;
  name_norm: string;
  name_core: string;
  status: string;
  entity_type: string;
  principal_city: string | null;
  filing_date: string | null;
  principal_addr1: string | null;
  principal_zip5: string | null;
}

const q = (params: Record<string, string | number>): string =>
  new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)])).toString();

/**
 * A registered name (normalized: punctuation and case are the variant kind's business) with one
 * change to its core words, its legal form kept: what a person copying the name gets wrong.
 */
function changedName(norm: string, core: string, change: (coreWords: string[]) => string[] | null): string | null {
  const words = norm.split(' ');
  const coreWords = core.split(' ');
  // The core words' places in the full name, in order (the legal form and THE/AND/OF stay put).
  const places: number[] = [];
  for (const w of coreWords) {
    const at = words.findIndex((x, i) => x === w && !places.includes(i));
    if (at < 0) return null;
    places.push(at);
  }
  const changed = change(coreWords);
  if (!changed) return null;
  const out = words.map((w, i) => (places.includes(i) ? null : w));
  changed.forEach((w, k) => (out[places[k]!] = w));
  return out.filter((w): w is string => w !== null && w !== '').join(' ');
}

/** One character of the longest core word changed to its neighbour in the alphabet: a typo. */
function typo(e: Sampled, r: Rng): string | null {
  return changedName(e.name_norm, e.name_core, (words) => {
    const longest = words.reduce((a, b) => (b.length > a.length ? b : a), '');
    if (longest.length < 5) return null;
    const at = 1 + r.int(longest.length - 2);
    const c = longest.charCodeAt(at);
    const word =
      longest.slice(0, at) + String.fromCharCode(c === 90 ? 89 : c === 57 ? 56 : c + 1) + longest.slice(at + 1);
    return words.map((w) => (w === longest ? word : w));
  });
}

/** A core word other than the first left out (names of three core words or more). */
const droppedWord = (e: Sampled, r: Rng): string | null =>
  changedName(e.name_norm, e.name_core, (words) => {
    if (words.length < 3) return null;
    const drop = 1 + r.int(words.length - 1);
    return words.map((w, i) => (i === drop ? '' : w));
  });

/** A core word of another name put after the first (names of three core words or more). */
const addedWord = (e: Sampled, word: string): string | null =>
  changedName(e.name_norm, e.name_core, (words) =>
    words.length >= 3 && !words.includes(word) ? [words[0]!, `${words[1]} ${word}`.trim(), ...words.slice(2)] : null,
  );

/** The first two core words the other way round. */
const swappedWords = (e: Sampled): string | null =>
  changedName(e.name_norm, e.name_core, (words) =>
    words.length >= 2 ? [words[1]!, words[0]!, ...words.slice(2)] : null,
  );

const SUFFIX_VARIANTS: Array<[RegExp, string]> = [
  [/\bLLC\b\.?$/, 'L.L.C.'],
  [/\bL\.L\.C\.$/, 'LLC'],
  [/\bINC\b\.?$/, 'Incorporated'],
  [/\bCORP\b\.?$/, 'Corporation'],
  [/\bCORPORATION$/, 'Corp.'],
];

/** Other punctuation, case and legal-form spelling: what a person types for the same name. */
function variant(name: string): string {
  let v = name.replace(/,/g, '');
  for (const [re, to] of SUFFIX_VARIANTS)
    if (re.test(v)) {
      v = v.replace(re, to);
      break;
    }
  return v.toLowerCase();
}

async function sampleEntities(pool: pg.Pool, r: Rng, n: number): Promise<Sampled[]> {
  const { rows } = await pool.query<{ max: number }>('SELECT max(id) AS max FROM registry.entities');
  const ids = Array.from({ length: n * 2 }, () => 1 + r.int(rows[0]!.max));
  const res = await pool.query<Sampled>(
    `SELECT document_number, name, name_norm, name_core, status, entity_type, principal_city,
            filing_date::text, principal_addr1, principal_zip5
     FROM registry.entities WHERE id = ANY($1) AND name_core <> '' ORDER BY array_position($1, id) LIMIT $2`,
    [ids, n],
  );
  return res.rows;
}

export async function drawMix(pool: pg.Pool, seed: number, perKind: number): Promise<Query[]> {
  const r = new Rng(seed, BENCH_STREAM, 0);
  const entities = await sampleEntities(pool, r, perKind * 2);
  const common = (
    await pool.query<{ word: string }>(
      `SELECT word FROM registry.entity_words WHERE length(word) > 3 ORDER BY n DESC LIMIT 20`,
    )
  ).rows.map((x) => x.word);
  const queries: Query[] = [];
  const add = (
    kind: string,
    params: Record<string, string | number>,
    expect?: Sampled,
    route = '/entities/search',
  ): void => {
    queries.push({
      kind,
      path: `${route}?${q(params)}`,
      ...(expect ? { expect: { doc: expect.document_number, norm: expect.name_norm } } : {}),
    });
  };
  const filtersOf = (e: Sampled): Record<string, string> => {
    const pick = r.int(4);
    if (pick === 0) return { status: e.status === 'A' ? 'active' : 'inactive' };
    if (pick === 1) return { entity_type: e.entity_type };
    if (pick === 2 && e.principal_city) return { principal_city: e.principal_city };
    return e.filing_date ? { filed_after: `${Number(e.filing_date.slice(0, 4)) - 1}-01-01` } : { status: 'active' };
  };
  for (const e of entities.slice(0, perKind)) {
    add('exact', { name: e.name }, e);
    const t = typo(e, r);
    if (t) add('typo', { name: t }, e);
    const dropped = droppedWord(e, r);
    if (dropped) add('dropped_word', { name: dropped }, e);
    const swapped = swappedWords(e);
    if (swapped) add('swapped_words', { name: swapped }, e);
    const words = e.name_core.split(' ');
    add('variant', { name: variant(e.name) }, e);
    add('first_word', { name: words[0]! });
    add('common_word', { name: r.pick(common) });
    add('short', { name: e.name_core.slice(0, 1 + r.int(2)) });
    add('exact+filter', { name: e.name, ...filtersOf(e) }, e);
    add('first_word+filter', { name: words[0]!, ...filtersOf(e) });
    add('common_word+filter', { name: r.pick(common), ...filtersOf(e) });
    add('short+filter', { name: e.name_core.slice(0, 1 + r.int(2)), ...filtersOf(e) });
  }
  for (const e of entities.slice(perKind, perKind * 2)) {
    const filters = { ...filtersOf(e), ...(r.int(2) ? filtersOf(e) : {}) };
    const sort = r.pick(['date_newest', 'date_newest', 'name_asc', 'date_oldest']);
    queries.push({ kind: 'filters_only', path: `/entities/search?${q({ ...filters, sort })}` });
  }
  // The classes (docs/search.md, "What a query means"), from the typo model's own stream.
  const t = new Rng(seed, BENCH_STREAM, TYPO_INDEX);
  for (const e of entities.slice(0, perKind)) {
    const one = misspell(e.name_norm, t);
    if (one) add('typo_any', { name: one }, e);
    const coreWords = e.name_core.split(' ').length;
    const two = coreWords >= 3 ? misspell(e.name_norm, t, 2) : null;
    if (two) add('typo_two', { name: two }, e);
    const other = t.pick(entities).name_core.split(' ');
    const added = addedWord(e, t.pick(other));
    if (added) add('added_word', { name: added }, e);
  }
  for (let i = 0; i < Math.max(3, perKind / 10); i++)
    queries.push({
      kind: 'deep_page',
      path: `/entities/search?${q({ name: r.pick(common), offset: 10_000, limit: 25 })}`,
    });

  const { rows: maxima } = await pool.query<{ entity: number; agent: number }>(
    'SELECT (SELECT max(id) FROM registry.entities) AS entity, (SELECT max(id) FROM registry.agents) AS agent',
  );
  const ids = (max: number, n: number): number[] => Array.from({ length: n }, () => 1 + r.int(max));
  const officers = (
    await pool.query<{
      last_name: string;
      first_name: string;
      middle_initial: string | null;
      name_suffix: string | null;
      document_number: string;
      name_norm: string;
    }>(
      `SELECT o.last_name, o.first_name, o.middle_initial, o.name_suffix, o.document_number, o.name_norm
       FROM registry.officers o
       WHERE o.entity_id = ANY($1) AND o.last_name IS NOT NULL AND o.first_name IS NOT NULL
       ORDER BY array_position($1, o.entity_id), o.slot LIMIT $2`,
      [ids(maxima[0]!.entity, perKind * 4), perKind],
    )
  ).rows;
  for (const o of officers) {
    // The name as the registry holds it (an initial and a suffix too: without them it is often that of
    // dozens of others at full scale), in either order.
    const given = [o.first_name, o.middle_initial].filter(Boolean).join(' ');
    const suffix = o.name_suffix ? ` ${o.name_suffix}` : '';
    const name = r.int(2) ? `${given} ${o.last_name}${suffix}` : `${o.last_name}, ${given}${suffix}`;
    queries.push({
      kind: 'officer',
      path: `/officers/search?${q({ name })}`,
      expect: { doc: o.document_number, norm: o.name_norm },
    });
    queries.push({ kind: 'officer_surname', path: `/officers/search?${q({ name: o.last_name })}` });
    const typed = misspell(name.replace(',', ''), t);
    if (typed)
      queries.push({
        kind: 'officer_typo',
        path: `/officers/search?${q({ name: typed })}`,
        expect: { doc: o.document_number, norm: o.name_norm },
      });
  }
  const agents = (
    await pool.query<{ name: string }>(
      `SELECT name FROM registry.agents WHERE id = ANY($1) ORDER BY array_position($1, id) LIMIT $2`,
      [ids(maxima[0]!.agent, perKind * 4), perKind],
    )
  ).rows;
  for (const a of agents) queries.push({ kind: 'agent', path: `/agents/search?${q({ name: a.name })}` });
  for (const e of entities.slice(0, perKind)) {
    if (e.principal_zip5)
      queries.push({ kind: 'address_zip', path: `/addresses/search?${q({ query: e.principal_zip5 })}` });
    if (e.principal_addr1)
      queries.push({
        kind: 'address_street',
        path: `/addresses/search?${q({ query: e.principal_addr1.split(' ').slice(0, 3).join(' ') })}`,
      });
  }
  for (const e of entities.slice(0, perKind)) {
    const street = e.principal_addr1 && misspell(addressKey(e.principal_addr1).norm, t);
    if (street)
      queries.push({
        kind: 'address_typo',
        path: `/addresses/search?${q({ query: street })}`,
        expect: { doc: e.document_number, norm: e.name_norm, address: addressKey(e.principal_addr1!).norm },
      });
  }
  // The same officers as users type them (docs/benchmarks.md): first and last name, either order, without
  // the middle initial or suffix the registry holds, and the same with one typo.
  const p = new Rng(seed, BENCH_STREAM, PEOPLE_INDEX);
  for (const o of officers) {
    const typed = normalizeText(p.int(2) ? `${o.first_name} ${o.last_name}` : `${o.last_name} ${o.first_name}`);
    const expect = { doc: o.document_number, norm: o.name_norm, person: personKey(typed).words };
    queries.push({ kind: 'person_typed', path: `/officers/search?${q({ name: typed })}`, expect });
    const mistyped = misspell(typed, p);
    if (mistyped)
      queries.push({ kind: 'person_typed_typo', path: `/officers/search?${q({ name: mistyped })}`, expect });
  }
  // A street address with one edit in a letter of its street, and with one edit in its house number
  // (docs/benchmarks.md): the first can be told from every other address, the second often names another one.
  const a = new Rng(seed, BENCH_STREAM, ADDRESS_INDEX);
  for (const e of entities.slice(0, perKind)) {
    if (!e.principal_addr1) continue;
    const address = addressKey(e.principal_addr1).norm;
    const expect = { doc: e.document_number, norm: e.name_norm, address };
    const street = misspell(address, a, 1, (w, at) => at > 0 && LETTERS_ONLY.test(w));
    if (street)
      queries.push({ kind: 'address_street_typo', path: `/addresses/search?${q({ query: street })}`, expect });
    const number = misspell(address, a, 1, (w, at) => at === 0 && HOUSE_NUMBER.test(w));
    if (number)
      queries.push({ kind: 'address_number_typo', path: `/addresses/search?${q({ query: number })}`, expect });
  }
  await markNamesAnother(pool, queries);
  await markAlike(pool, queries);
  return queries;
}

/** A page of answers: a dropped word's query that more names than this are alike to is one of many. */
export const PAGE_ROWS = 10;
/** The kinds markAlike marks. */
export const ALIKE_KINDS: ReadonlySet<string> = new Set(['dropped_word']);

/**
 * Marks the dropped-word queries whose words and one word more are the core of more than a page of other names
 * (GREAT PROPERTIES LLC: every GREAT X PROPERTIES, GREAT PROPERTIES X): nothing the query says tells the one meant
 * from them, so it reaches the top 10 by its similarity's ties, not by the ranking. Reported beside the row.
 */
async function markAlike(pool: pg.Pool, queries: Query[]): Promise<void> {
  const dropped = queries.filter((x) => ALIKE_KINDS.has(x.kind) && x.expect);
  const { rows } = await pool.query<{ i: number; n: number }>(
    `SELECT u.i, a.n FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u(typed, norm, i)
     CROSS JOIN LATERAL (
       SELECT count(*)::int AS n FROM registry.entities e
       WHERE e.name_words @> string_to_array(u.typed, ' ')
         AND cardinality(e.name_words) = cardinality(string_to_array(u.typed, ' ')) + 1 AND e.name_norm <> u.norm) a
     WHERE a.n > $3`,
    [
      dropped.map((x) => nameKey(new URLSearchParams(x.path.split('?')[1]).get('name')!).words.join(' ')),
      dropped.map((x) => x.expect!.norm),
      PAGE_ROWS,
    ],
  );
  for (const { i, n } of rows) {
    const x = dropped[Number(i) - 1]!;
    queries[queries.indexOf(x)] = { ...x, expect: { ...x.expect!, alike: n } };
  }
}

/**
 * Marks the changed names that other entities are registered under (their core, legal form aside):
 * at 12.6 million generated entities GREAT PROPERTIES LLC, one word dropped from GREAT REBOOT
 * PROPERTIES LLC, is the name of 118 others. No ranking can prefer the one meant over exact matches.
 * The same for a mistyped person's name that is another officer's (LUCA FERNANDEZ for LUCAS), and a
 * mistyped street address that begins another entity's (63 SUNSET AVE for 613 SUNSET AVE).
 */
async function markNamesAnother(pool: pg.Pool, queries: Query[]): Promise<void> {
  const param = (x: Query, name: string): string => new URLSearchParams(x.path.split('?')[1]).get(name)!;
  const mark = async (kinds: ReadonlySet<string>, sql: string, typed: (x: Query) => string): Promise<void> => {
    const changed = queries.filter((x) => kinds.has(x.kind) && x.expect);
    const { rows } = await pool.query<{ i: number }>(sql, [
      changed.map(typed),
      changed.map((x) => x.expect!.address ?? x.expect!.norm),
    ]);
    for (const { i } of rows) {
      const x = changed[Number(i) - 1]!;
      queries[queries.indexOf(x)] = { ...x, expect: { ...x.expect!, namesAnother: true } };
    }
  };
  await mark(
    CHANGED_KINDS,
    `SELECT u.i FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u(core, norm, i)
     WHERE EXISTS (SELECT 1 FROM registry.entities e WHERE e.name_core = u.core AND e.name_norm <> u.norm)`,
    (x) => nameKey(param(x, 'name')).core,
  );
  await mark(
    new Set(['officer_typo']),
    `SELECT u.i FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u(typed, norm, i)
     WHERE EXISTS (SELECT 1 FROM registry.officers o WHERE o.name_words @> string_to_array(u.typed, ' ')
                   AND o.name_sorted = u.typed AND o.name_norm <> u.norm)`,
    (x) => personKey(param(x, 'name')).sorted,
  );
  // A first and last name mistyped into another person's first and last name (initials and suffixes aside).
  await mark(
    new Set(['person_typed_typo']),
    `SELECT u.i FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u(typed, norm, i)
     WHERE EXISTS (SELECT 1 FROM registry.officers o WHERE o.name_words @> string_to_array(u.typed, ' ')
                   AND o.name_norm <> u.norm)`,
    (x) => personKey(param(x, 'name')).sorted,
  );
  await mark(
    new Set(['address_typo', 'address_street_typo', 'address_number_typo']),
    `SELECT u.i FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u(typed, meant, i)
     WHERE EXISTS (SELECT 1 FROM registry.entities e WHERE e.address_words @> string_to_array(u.typed, ' ')
                   AND e.address_norm LIKE u.typed || '%' AND e.address_norm NOT LIKE u.meant || '%')`,
    (x) => addressKey(param(x, 'query')).norm,
  );
}

/** Entity detail requests for random document numbers. */
export async function detailPaths(pool: pg.Pool, seed: number, n: number): Promise<string[]> {
  const r = new Rng(seed, BENCH_STREAM, 1);
  const { rows } = await pool.query<{ max: number }>('SELECT max(id) AS max FROM registry.entities');
  const res = await pool.query<{ document_number: string }>(
    'SELECT document_number FROM registry.entities WHERE id = ANY($1)',
    [Array.from({ length: n }, () => 1 + r.int(rows[0]!.max))],
  );
  return res.rows.map((x) => `/entities/${x.document_number}`);
}
