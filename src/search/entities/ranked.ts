// A relevance page of an entity query: entity names as a ranked query (tiers, similarity, tiebreak),
// with the posting slice or first-word tier its strategy chose, handed to the ranking.
import type pg from 'pg';
import { legalForm, LEGAL_FORMS } from '../../text/normalize.js';
import { oneEditAway } from '../words/edits.js';
import type { SearchContext } from '../context.js';
import { firstWordTier } from '../ranking/first-word-tier.js';
import { rankedPage } from '../ranking/strategy.js';
import type { FirstWordIndex, RankedQuery } from '../ranking/query.js';
import type { Sql } from '../sql.js';
import type { Total } from '../totals/total.js';
import { rowFilters } from './filters.js';
import type { Named } from './name.js';
import { firstWordTierWord, postingSlice, type EntityStrategy } from './strategy.js';
import { matchSize } from './totals.js';

/** Entity names' first-word index (entities_first_word_order_idx), in the order of their relevance tiebreak. */
const ENTITY_FIRST_WORDS: FirstWordIndex = {
  from: 'registry.entities e',
  ref: 'e.id',
  text: 'e.name_core',
  words: 'e.name_words',
  trgm: 'e.name_trgm',
  order: ['filing_date DESC NULLS LAST', 'document_number'],
  dictionary: 'entity_words',
};

/** The refs of the page by relevance of `name` over the matches of the strategy's predicate. */
export async function relevancePage(
  pool: pg.Pool,
  ctx: SearchContext,
  s: EntityStrategy,
  name: Named,
  total: Total,
): Promise<number[]> {
  const { q, filtered, sql, where } = s;
  const postings = postingSlice(s, name);
  // The query's legal form decides between rows alike in similarity (names differing in it alone),
  // a form mistyped (`LLa`, `INX`) read as the form it most likely meant; the postings' order has no
  // place for it. (A form is one of a few fixed words: safe inline.)
  const form = postings ? null : legalForm(name.norm);
  const rankForm = postings ? null : (form ?? mistypedLegalForm(name.norm));
  const formFirst = rankForm ? `(e.name_norm LIKE '% ${rankForm}') DESC, ` : '';
  const word = postings ? null : firstWordTierWord(name, filtered, form, s.total);
  const filter = filtered ? (f: Sql) => rowFilters(f, q, true).join(' AND ') : undefined;
  // Exact (the full name first, then without its legal form), then prefix: with a legal form typed, the names
  // of that form first (THE WILLIAMS FAMILY INC: THE WILLIAMS FAMILY FOUNDATION, INC. before WILLIAMS FAMILY
  // TRUST, nearer in similarity), unless the prefix tier comes off the first-word index (a form is typed then).
  const exact = [(s: Sql) => `e.name_norm = ${s.p(name.norm)}`, (s: Sql) => `e.name_core = ${s.p(name.core)}`];
  const prefix = (s: Sql): string => `e.name_core LIKE ${s.p(name.core)} || '%'`;
  const prefixes = form && !word ? [(s: Sql) => `${prefix(s)} AND e.name_norm LIKE '% ${form}'`, prefix] : [prefix];
  const ranked: RankedQuery = {
    from: 'registry.entities e',
    ref: 'e.id',
    where,
    tiers: [...exact, ...prefixes],
    exactTiers: exact.length,
    text: 'e.name_core',
    trgm: 'e.name_trgm',
    query: name.core,
    tiebreak: `${formFirst}e.filing_date DESC NULLS LAST, e.document_number ASC`,
    asTyped: asTyped(name, q.name ?? ''),
    sql,
    ...(postings ? { postings } : {}),
    ...(word ? { prefixTier: firstWordTier(pool, ENTITY_FIRST_WORDS, word.word, word.expansions, filter) } : {}),
  };
  const size = await matchSize(pool, ctx, s, total);
  return rankedPage(pool, ctx, ranked, q.offset, q.limit, size);
}

/** Letters, digits and spaces: what is left of a name once they are taken out is its punctuation. */
const punctuation = (text: string): string => text.replace(/[A-Za-z0-9\s]/g, '');

/**
 * Among names equal to the query once normalized (the first tier: MUSHO LLC, MUSHO L.L.C.), the one
 * registered as it was typed comes first: case aside, then the one with the same punctuation. Rows of the
 * other tiers all take 0, so their order is untouched. (Whitespace is collapsed on both sides.)
 */
function asTyped(name: Named, typed: string): (sql: Sql) => string {
  const spaced = typed.trim().replace(/\s+/g, ' ');
  return (s) => `CASE WHEN e.name_norm = ${s.p(name.norm)}
    THEN (upper(regexp_replace(btrim(e.name), '[[:space:]]+', ' ', 'g')) = upper(${s.p(spaced)}))::int * 2
       + (regexp_replace(e.name, '[[:alnum:][:space:]]', '', 'g') = ${s.p(punctuation(spaced))})::int
    ELSE 0 END DESC`;
}

/** Two letters one edit from a form are as often a word of the name (LA, CA): only longer ones are read as forms. */
const MISTYPED_FORM_MIN_LENGTH = 3;

/** The legal form a last word one edit from a form meant (`LLA` is LLC), the most common first; else null. */
function mistypedLegalForm(norm: string): string | null {
  const last = norm.slice(norm.lastIndexOf(' ') + 1);
  if (last === norm || last.length < MISTYPED_FORM_MIN_LENGTH) return null;
  const near = new Set(oneEditAway(last));
  return [...LEGAL_FORMS].find((f) => near.has(f)) ?? null;
}
