// An entity query's filters: its match predicate (the name's condition and every filter, one
// predicate for the page and the total), and which of the filters the precomputed counts and the
// ranked postings hold (docs/search.md, "Totals").
import type pg from 'pg';
import { personKey } from '../../text/normalize.js';
import { agentWords } from '../people.js';
import type { Sql } from '../sql.js';
import { statusLetters, type StatusValue } from '../status.js';
import type { CountFilters } from '../totals/precomputed.js';
import { expandWords, termsMatch, type Expand } from '../words/expansion.js';
import { wordsMatch } from '../words/relaxed.js';
import { isNamed, type NameMatch } from './name.js';
import type { EntitySearch } from './query.js';

/** The filter whose date index a listing walks, testing the other on each row (see planDateWalk). */
export type WalkedFilter = 'status' | 'entity_type';

/**
 * A filter column as conditions read it. With a name, status, type and dates are checked on the rows
 * the name finds, never through their indexes: a few values (or a wide range) cover millions of rows,
 * and PostgreSQL would AND a bitmap of all of them with the name's (seconds at 12.6 million entities).
 */
const filterColumn = (column: 'status' | 'entity_type' | 'filing_date', named: boolean): string =>
  !named ? `e.${column}` : column === 'filing_date' ? `(e.filing_date + 0)` : `(e.${column} || '')`;

/** `a`/`active`, `i`/`inactive`, or a refined letter of the entity's last inactivating event. */
function statusCondition(sql: Sql, values: readonly StatusValue[], named: boolean): string {
  const letters = statusLetters(values);
  const status = filterColumn('status', named);
  const parts: string[] = [];
  if (letters.has('a')) parts.push(`${status} = 'A'`);
  if (letters.has('i')) parts.push(`${status} = 'I'`);
  const refined = [...letters].filter((l) => l !== 'a' && l !== 'i');
  if (refined.length) {
    parts.push(
      `(${status} = 'I' AND EXISTS (SELECT 1 FROM registry.inactivations x
        WHERE x.document_number = e.document_number AND x.letter = ANY(${sql.p(refined)}::text[])))`,
    );
  }
  return `(${parts.join(' OR ')})`;
}

/** The conditions of status, type and filing dates, on the rows a name finds when `named` (see filterColumn). */
export function rowFilters(sql: Sql, q: EntitySearch, named: boolean, walked: WalkedFilter | null = null): string[] {
  const where: string[] = [];
  // A listing walking one filter's date index tests the other on its rows (see planDateWalk).
  if (q.status?.length) where.push(statusCondition(sql, q.status, named || walked === 'entity_type'));
  const type = filterColumn('entity_type', named || walked === 'status');
  // One type as `=`: a list (`= ANY`) cannot walk the type-and-date index in date order.
  if (q.entity_type?.length === 1) where.push(`${type} = ${sql.p(q.entity_type[0])}`);
  else if (q.entity_type?.length) where.push(`${type} = ANY(${sql.p(q.entity_type)}::text[])`);
  if (q.filed_after !== undefined) where.push(`${filterColumn('filing_date', named)} >= ${sql.p(q.filed_after)}::date`);
  if (q.filed_before !== undefined)
    where.push(`${filterColumn('filing_date', named)} <= ${sql.p(q.filed_before)}::date`);
  return where;
}

/** Where matchConditions reads: monitoring judges copies of a few rows, its searches' words batched. */
export interface ConditionSources {
  /** The table an officer name is looked up in. */
  officers?: string;
  expand?: Expand;
}

/** The match predicate's conditions: the name's (when it has one) first, then each filter's. */
export async function matchConditions(
  pool: pg.Pool | pg.PoolClient,
  sql: Sql,
  q: EntitySearch,
  name: NameMatch,
  walked: WalkedFilter | null,
  {
    officers = 'registry.officers',
    expand = (dictionary, words) => expandWords(pool, dictionary, words),
  }: ConditionSources = {},
): Promise<string[]> {
  const where: string[] = [];
  if (name.kind === 'empty') where.push('false');
  if (name.kind === 'prefix') where.push(`e.name_core LIKE ${sql.p(name.core)} || '%'`);
  // Words within a city: each expansion's key in the city finds exactly its rows (registry.city_words,
  // entities_city_words_idx). The city's own condition is then an expression no index is on: ANDing a
  // bitmap of every row of the city (0.7 µs a row: WICOZ in MIAMI, 1.5 million rows, 1 s) would only cost.
  const city = q.principal_city !== undefined ? sql.p(q.principal_city) : null;
  const cityWords = name.kind === 'words' && city !== null;
  if (name.kind === 'words') {
    // A relaxed name (docs/search.md, "What a query means"): every word but one.
    const match = wordsMatch(name.relaxed);
    where.push(
      city === null
        ? match(sql, 'e.name_words', name.terms)
        : match(
            sql,
            'registry.city_words(e.principal_city, e.name_words)',
            name.terms,
            (words) => `registry.city_words(${city}, ${words}::text[])`,
          ),
    );
  }
  where.push(...rowFilters(sql, q, isNamed(name), walked));
  // Every entity here is on the Florida registry.
  if (q.state !== undefined && q.state !== 'FL') where.push('false');
  if (city !== null)
    where.push(`${cityWords ? `(upper(e.principal_city) || '')` : 'upper(e.principal_city)'} = upper(${city})`);
  if (q.principal_state !== undefined) where.push(`coalesce(e.principal_state, 'FL') = ${sql.p(q.principal_state)}`);
  if (q.doc_number_prefix !== undefined) {
    where.push(`e.document_number LIKE ${sql.p(q.doc_number_prefix.toUpperCase().replace(/[\\%_]/g, '\\$&'))} || '%'`);
  }
  if (q.officer_name !== undefined) {
    const terms = await expand('officer_words', personKey(q.officer_name).words);
    where.push(`e.id IN (SELECT o.entity_id FROM ${officers} o WHERE ${termsMatch(sql, 'o.name_words', terms)})`);
  }
  if (q.ra_name !== undefined) {
    const terms = await expand('agent_words', agentWords(q.ra_name));
    where.push(termsMatch(sql, 'e.agent_words', terms));
  }
  return where;
}

/**
 * The query's filters other than the name and city when they are all status (active or inactive),
 * type and filing dates: the ones the precomputed counts and the ranked postings hold. Null otherwise.
 */
export function countedFilters(q: EntitySearch): CountFilters | null {
  if (
    q.doc_number_prefix !== undefined ||
    q.officer_name !== undefined ||
    q.ra_name !== undefined ||
    q.principal_state !== undefined
  )
    return null;
  if (q.state !== undefined && q.state !== 'FL') return null;
  const letters = q.status?.length ? statusLetters(q.status) : null;
  if (letters && [...letters].some((l) => l !== 'a' && l !== 'i')) return null;
  return {
    ...(letters ? { statuses: [...letters].map((l) => l.toUpperCase()) } : {}),
    ...(q.entity_type?.length ? { types: q.entity_type } : {}),
    ...(q.filed_after ? { after: q.filed_after } : {}),
    ...(q.filed_before ? { before: q.filed_before } : {}),
  };
}

/**
 * The query's filters as a condition on the ranked postings' own columns (status, entity_type, filed,
 * city: all in entity_postings_rank_idx), when they hold them all: the postings that pass are then
 * exactly the matches.
 */
export function postingFilter(q: EntitySearch, f: CountFilters | null): ((sql: Sql) => string) | undefined {
  if (!f) return undefined;
  return (sql) => {
    const parts = [
      ...(q.principal_city !== undefined ? [`p.city = upper(${sql.p(q.principal_city)})`] : []),
      ...(f.statuses ? [`p.status = ANY(${sql.p(f.statuses)}::text[])`] : []),
      ...(f.types ? [`p.entity_type = ANY(${sql.p(f.types)}::text[])`] : []),
      ...(f.after ? [`p.filed >= ${sql.p(f.after)}::date`] : []),
      // A posting without a filing date holds -infinity, which no date filter admits.
      ...(f.before ? [`p.filed <= ${sql.p(f.before)}::date AND p.filed > '-infinity'`] : []),
    ];
    return parts.join(' AND ') || 'true';
  };
}
