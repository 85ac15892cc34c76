// Officer search (one row per officer slot and entity) and registered-agent search (one row per
// agent: normalized name and ZIP5, with the number of entities it serves). Both rank like entity
// names (src/search/ranking): exact (either word order), prefix, then trigram similarity (which ignores
// word order).
import type pg from 'pg';
import type { Dictionary } from '../text/dictionaries.js';
import { correctLegalTypos } from '../text/legal-typos.js';
import { nameKey, personKey, sortedWords } from '../text/normalize.js';
import { namesKey } from './cache-keys.js';
import type { SearchContext } from './context.js';
import type { Page, PageRequest } from './paging.js';
import { firstWordTier } from './ranking/first-word-tier.js';
import { rankedPage } from './ranking/strategy.js';
import type { FirstWordIndex, RankedQuery } from './ranking/query.js';
import type { AgentHit, OfficerHit } from './shapes.js';
import { Sql } from './sql.js';
import { PREFIX_QUERY_MAX_LENGTH } from './thresholds.js';
import { countRows, Total } from './totals/total.js';
import { countTerm } from './words/counts.js';
import { carries, expandWords, matchBound, type Term } from './words/expansion.js';
import { matchesSome, noneHoldsAll, wordsMatch } from './words/relaxed.js';

/** An agent's words: a company's without its weak words, else a person's. */
export function agentWords(input: string): string[] {
  const company = nameKey(input).words;
  return company.length > 0 ? company : personKey(input).words;
}

interface PersonQuery {
  /** Table, alias and columns of the kind searched. */
  readonly from: string;
  readonly ref: string;
  readonly words: string;
  readonly norm: string;
  readonly sorted: string;
  readonly trgm: string;
  readonly dictionary: Dictionary;
  readonly tiebreak: string;
  /** An index on (trgm, tiebreak) serves single frequent words in final order (RankedQuery.trigramOrder). */
  readonly trigramOrdered: boolean;
  /** Many matches are ranked whole, never walked (RankedQuery.neverWalk). */
  readonly neverWalk: boolean;
  /**
   * `norm` holds every word of the name (no weak words dropped): a one-word query's exact tier is
   * then `norm` equal to the word, which the norm index answers (`sorted` has no index).
   */
  readonly normHoldsEveryWord: boolean;
  /** The first-word index the prefix tier of a word alone is read through (first-word-tier.ts). */
  readonly firstWords?: FirstWordIndex;
}

/** The exact tier: the same words in any order. */
function exactTier(k: PersonQuery, words: string[], norm: string): (s: Sql) => string {
  if (k.normHoldsEveryWord && words.length === 1 && words[0] === norm) return (s) => `${k.norm} = ${s.p(norm)}`;
  return (s) => `${k.sorted} = ${s.p(sortedWords(words))}`;
}

/**
 * A name condition (1 or 2 characters: the start of the name; else by words, relaxed when no row holds them
 * all) and the terms used. Nothing only when nothing is left: a name of short words only (YST TOM, for
 * YOST TOM) whose words match nobody is taken again with one edit allowed in each of them.
 */
async function nameCondition(
  pool: pg.Pool,
  sql: Sql,
  k: PersonQuery,
  words: string[],
  norm: string,
): Promise<{ where: string; terms: Term[]; relaxed: boolean }> {
  if (norm.length > 0 && norm.length <= PREFIX_QUERY_MAX_LENGTH)
    return { where: `${k.norm} LIKE ${sql.p(norm)} || '%'`, terms: [], relaxed: false };
  let terms = await expandWords(pool, k.dictionary, words);
  let relaxed = await noneHoldsAll(pool, k.from, k.words, terms);
  if (!terms.some((t) => carries(t.word)) && !(await matchesSome(pool, k.from, k.words, terms, relaxed))) {
    terms = await expandWords(pool, k.dictionary, words, { shortCarried: true });
    relaxed = await noneHoldsAll(pool, k.from, k.words, terms);
  }
  return { where: wordsMatch(relaxed)(sql, k.words, terms), terms, relaxed };
}

/** The prefix tier of a word alone off the kind's first-word index, when it has one. */
function prefixTierOf(
  pool: pg.Pool,
  k: PersonQuery,
  only: Term | null,
  words: string[],
  norm: string,
): Pick<RankedQuery, 'prefixTier'> {
  if (!k.firstWords || !only || words.length !== 1 || only.word !== norm) return {};
  return { prefixTier: firstWordTier(pool, k.firstWords, norm, only.expansions) };
}

/** A page of refs and the exact total for a person or agent name query. */
async function searchNames(
  pool: pg.Pool,
  ctx: SearchContext,
  k: PersonQuery,
  q: PageRequest & { words?: string[]; norm?: string; extra?: { where: (sql: Sql) => string; key: string } },
  defaultOrder: string,
): Promise<{ refs: number[]; total: number }> {
  const sql = new Sql();
  const where: string[] = [];
  let terms: Term[] = [];
  let relaxed = false;
  if (q.norm !== undefined) {
    const c = await nameCondition(pool, sql, k, q.words ?? [], q.norm);
    where.push(c.where);
    ({ terms, relaxed } = c);
  }
  if (q.extra) where.push(q.extra.where(sql));
  const condition = where.join(' AND ') || 'true';
  const params = [...sql.params];
  // A single word that matches only itself (a frequent word always does) counts exactly as its
  // dictionary says: a row's words are distinct.
  const only = terms.length === 1 && !q.extra ? terms[0]! : null;
  const exactFromDictionary =
    only !== null && (only.frequent || (only.expansions.length === 1 && only.expansions[0] === only.word));
  const key = namesKey(k.from, ctx.version, q.norm, terms, q.extra?.key);
  const counted = new Total(
    ctx.counts,
    key,
    async () => {
      // One word (one that is its own only expansion: the dictionary's count, no statement).
      if (terms.length === 1 && !q.extra) return countTerm(pool, k.from, k.words, terms[0]!);
      return countRows(pool, k.from, condition, params);
    },
    exactFromDictionary,
  );
  if (q.norm === undefined) {
    const [total, { rows }] = await Promise.all([
      counted.get(),
      pool.query<{ ref: number }>(
        `SELECT ${k.ref} AS ref FROM ${k.from} WHERE ${condition} ORDER BY ${defaultOrder}
         OFFSET $${params.length + 1} LIMIT $${params.length + 2}`,
        [...params, q.offset, q.limit],
      ),
    ]);
    return { refs: rows.map((x) => x.ref), total };
  }
  const trigramOrder = k.trigramOrdered && exactFromDictionary && terms[0]!.word === q.norm;
  const refs = await rankedPage(
    pool,
    ctx,
    {
      from: k.from,
      ref: k.ref,
      where: condition,
      tiers: [exactTier(k, q.words ?? [], q.norm), (s) => `${k.norm} LIKE ${s.p(q.norm)} || '%'`],
      exactTiers: 1,
      text: k.norm,
      trgm: k.trgm,
      query: q.norm,
      tiebreak: k.tiebreak,
      sql,
      trigramOrder,
      neverWalk: k.neverWalk,
      ...prefixTierOf(pool, k, only, q.words ?? [], q.norm),
    },
    q.offset,
    q.limit,
    { ...matchBound(terms, q.extra !== undefined, relaxed), total: counted },
  );
  return { refs, total: await counted.get() };
}

const OFFICERS: PersonQuery = {
  from: 'registry.officers o',
  ref: '(o.entity_id * 8 + o.slot)',
  words: 'o.name_words',
  norm: 'o.name_norm',
  sorted: 'o.name_sorted',
  trgm: 'o.name_trgm',
  dictionary: 'officer_words',
  tiebreak: 'o.name ASC, o.document_number ASC, o.slot ASC',
  trigramOrdered: true,
  neverWalk: false,
  normHoldsEveryWord: true,
  // officers_first_word_order_idx.
  firstWords: {
    from: 'registry.officers o',
    ref: '(o.entity_id * 8 + o.slot)',
    text: 'o.name_norm',
    words: 'o.name_words',
    trgm: 'o.name_trgm',
    order: ['name', 'document_number', 'slot'],
    dictionary: 'officer_words',
  },
};

export async function searchOfficers(
  pool: pg.Pool,
  ctx: SearchContext,
  q: PageRequest & { name?: string; title?: string },
): Promise<Page<OfficerHit>> {
  const key = q.name !== undefined ? personKey(q.name) : null;
  const title = q.title;
  const { refs, total } = await searchNames(
    pool,
    ctx,
    OFFICERS,
    {
      limit: q.limit,
      offset: q.offset,
      ...(key ? { words: key.words, norm: key.norm } : {}),
      ...(title !== undefined
        ? { extra: { where: (sql: Sql) => `o.title = upper(${sql.p(title)})`, key: `title:${title.toUpperCase()}` } }
        : {}),
    },
    'o.document_number ASC, o.slot ASC',
  );
  if (refs.length === 0) return { hits: [], total };
  const { rows } = await pool.query<OfficerHit>(
    `SELECT o.name AS officer_name, o.title AS title_code, o.document_number, e.name AS entity_name
     FROM unnest($1::int[]) WITH ORDINALITY AS u(ref, pos)
     JOIN registry.officers o ON (o.entity_id * 8 + o.slot) = u.ref
     JOIN registry.entities e ON e.id = o.entity_id
     ORDER BY u.pos`,
    [refs],
  );
  return { hits: rows, total };
}

const AGENTS: PersonQuery = {
  from: 'registry.agents a',
  ref: 'a.id',
  words: 'a.name_words',
  norm: 'a.agent_key',
  sorted: 'a.name_sorted',
  trgm: 'a.name_trgm',
  dictionary: 'agent_words',
  tiebreak: 'a.entity_count DESC, a.name ASC, a.zip5 ASC',
  trigramOrdered: false,
  // Agents' words are mostly a common word alone once the weak ones are dropped (SERVICES: 527,047 of 8.6 million
  // agents at 12.6 million entities), whose matches' trigram counts lie far from the query's: each walk step filtered
  // up to 5 million rows. Ranked whole, every query of over 100,000 matches measured answered 3 to 15 times sooner
  // (CORPORATION SERVICE COMPANY 24.4 → 1.1 s, LAW INC 13.8 → 0.5 s), the same page.
  neverWalk: true,
  // An agent's key keeps its legal form (SMITH LLC), its words do not.
  normHoldsEveryWord: false,
};

export async function searchAgents(
  pool: pg.Pool,
  ctx: SearchContext,
  q: PageRequest & { name?: string },
): Promise<Page<AgentHit>> {
  const page = (name: string | undefined): Promise<{ refs: number[]; total: number }> =>
    searchNames(
      pool,
      ctx,
      AGENTS,
      {
        limit: q.limit,
        offset: q.offset,
        ...(name !== undefined ? { words: agentWords(name), norm: nameKey(name).norm } : {}),
      },
      AGENTS.tiebreak,
    );
  let { refs, total } = await page(q.name);
  // A mistyped legal-form word (COTPORATION SERVICE COMPANY) is a word no agent holds: read it as the legal form.
  const corrected = total === 0 && q.name !== undefined ? correctLegalTypos(q.name) : null;
  if (corrected !== null) ({ refs, total } = await page(corrected));
  if (refs.length === 0) return { hits: [], total };
  const { rows } = await pool.query<AgentHit>(
    `SELECT a.name AS agent_name, a.entity_count AS linked_entity_count, coalesce(a.city, '') AS city,
            coalesce(a.state, '') AS state, a.zip5 AS zip
     FROM unnest($1::int[]) WITH ORDINALITY AS u(ref, pos) JOIN registry.agents a ON a.id = u.ref ORDER BY u.pos`,
    [refs],
  );
  return { hits: rows, total };
}
