// The entities a query may name: the name's search (as /v1/entities/search ranks it); again within the
// query's city when it has one and the first page holds none there (a common name's right entity can rank
// below the first page elsewhere); and the entity of a document number the query gives. Then each
// candidate as the features read it.
import type pg from 'pg';
import type { SearchContext } from '../context.js';
import { searchEntities } from '../entities/search.js';
import { normalizeText } from '../../text/normalize.js';
import { statusLabelSql } from '../status.js';
import type { MatchQuery } from './shapes.js';

/** Candidates taken from the name's search: enough to hold a common name's namesakes in other cities. */
const NAME_CANDIDATES = 20;
/** ... and from the same search within the query's city, where the entity named usually is. */
const CITY_CANDIDATES = 10;

/** An entity as the matcher compares it with a query. */
export interface CandidateRecord {
  readonly document_number: string;
  readonly entity_name: string;
  readonly status: string;
  readonly entity_type: string;
  readonly principal_address_street: string | null;
  readonly principal_city: string;
  readonly principal_zip: string;
  /** First lines of its principal and mailing addresses. */
  readonly streets: string[];
  /** Its principal and mailing cities. */
  readonly cities: string[];
  /** ZIP5s of its principal and mailing addresses. */
  readonly zips: string[];
  readonly officers: string[];
}

/** The document numbers a query's candidates are, best found first, without repeats. */
export async function candidateNumbers(pool: pg.Pool, ctx: SearchContext, q: MatchQuery): Promise<string[]> {
  const type = q.entity_type ? { entity_type: [q.entity_type] } : {};
  const named = await searchEntities(pool, ctx, { name: q.name, ...type, limit: NAME_CANDIDATES, offset: 0 });
  const hits = [...named.hits];
  // Within the city only when the name has more matches than its page holds and none of these is there.
  const city = q.city ? normalizeText(q.city) : '';
  if (city && named.total > named.hits.length && !hits.some((h) => normalizeText(h.principal_city) === city)) {
    const within = { name: q.name, principal_city: q.city, ...type, limit: CITY_CANDIDATES, offset: 0 };
    hits.push(...(await searchEntities(pool, ctx, within)).hits);
  }
  const numbers = hits.map((h) => h.document_number);
  if (q.document_number) numbers.unshift(q.document_number.toUpperCase());
  return [...new Set(numbers)];
}

/** The records of `numbers` (those that exist), by document number. */
export async function candidateRecords(pool: pg.Pool, numbers: string[]): Promise<Map<string, CandidateRecord>> {
  if (numbers.length === 0) return new Map();
  const { rows } = await pool.query<CandidateRecord>({
    name: 'match_candidates',
    text: `SELECT e.document_number, e.name AS entity_name, ${statusLabelSql('e.status')} AS status, e.entity_type,
              nullif(concat_ws(', ', e.principal_addr1, e.principal_addr2), '') AS principal_address_street,
              coalesce(e.principal_city, '') AS principal_city, coalesce(e.principal_zip5, '') AS principal_zip,
              array_remove(ARRAY[e.principal_addr1, e.mailing_addr1], NULL) AS streets,
              array_remove(ARRAY[e.principal_city, e.mailing_city], NULL) AS cities,
              array_remove(ARRAY[e.principal_zip5, substring(e.mailing_zip FROM '^[0-9]{5}')], NULL) AS zips,
              coalesce((SELECT array_agg(o.name ORDER BY o.slot) FROM registry.officers o
                        WHERE o.document_number = e.document_number), '{}') AS officers
       FROM registry.entities e WHERE e.document_number = ANY($1::text[])`,
    values: [numbers],
  });
  return new Map(rows.map((r) => [r.document_number, r]));
}
