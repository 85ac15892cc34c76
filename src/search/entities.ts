// Entity search: name (fuzzy, ranked exact, then prefix, then trigram similarity), filters,
// sorts, exact total and facets, all from one predicate.
import type pg from 'pg';
import { matchesAllWords } from './expand.js';
import { nameKey, personKey } from './normalize.js';
import { agentWords } from './people.js';
import { pageQuery, toPage, type Page } from './paging.js';
import { Sql } from './sql.js';

export const STATUS_VALUES = ['active', 'inactive', 'a', 'i', 'd', 'r', 'w', 'm', 'n', 'p', 'x'] as const;
export const SORTS = ['relevance', 'name_asc', 'name_desc', 'date_newest', 'date_oldest'] as const;
export const FACETS = ['status', 'entity_type', 'principal_city', 'principal_state', 'filing_year', 'state_of_formation'] as const;

export type StatusValue = (typeof STATUS_VALUES)[number];
export type Facet = (typeof FACETS)[number];

export interface EntitySearch {
  name?: string;
  status?: StatusValue[];
  entity_type?: string[];
  state?: string;
  principal_city?: string;
  principal_state?: string;
  filed_after?: string;
  filed_before?: string;
  doc_number_prefix?: string;
  officer_name?: string;
  ra_name?: string;
  sort?: (typeof SORTS)[number];
  limit: number;
  offset: number;
  facets?: Facet[];
}

export interface EntityHit {
  document_number: string;
  entity_name: string;
  status: string;
  entity_type: string;
  filing_date: string;
  principal_address_street: string | null;
  principal_city: string;
  principal_state: string;
  principal_zip: string;
  registered_agent_name: string | null;
}

/**
 * The hit's columns, from a row `r` of entities. Blank principal states are Florida's; an entity
 * without a file date shows its last transaction date (or the date its record arrived).
 */
export const entityHitColumns = (r: string): string => `
  ${r}.document_number, ${r}.name AS entity_name,
  CASE ${r}.status WHEN 'A' THEN 'active' WHEN 'I' THEN 'inactive' ELSE lower(${r}.status) END AS status,
  ${r}.entity_type, coalesce(${r}.filing_date, ${r}.last_transaction_date, ${r}.source_date)::text AS filing_date,
  nullif(concat_ws(', ', ${r}.principal_addr1, ${r}.principal_addr2), '') AS principal_address_street,
  coalesce(${r}.principal_city, '') AS principal_city,
  coalesce(${r}.principal_state, 'FL') AS principal_state,
  coalesce(${r}.principal_zip5, '') AS principal_zip,
  ${r}.agent_name AS registered_agent_name`;

const FACET_EXPR: Record<Facet, string> = {
  status: `CASE status WHEN 'A' THEN 'active' WHEN 'I' THEN 'inactive' ELSE lower(status) END`,
  entity_type: 'entity_type',
  principal_city: 'principal_city',
  principal_state: `coalesce(principal_state, 'FL')`,
  filing_year: `extract(year FROM filing_date)::int::text`,
  state_of_formation: 'state_of_formation',
};

/** Registry letters of the status filter: `a`/`active`, `i`/`inactive`, or a refined letter. */
function statusCondition(sql: Sql, values: readonly StatusValue[]): string {
  const letters = new Set(values.map((v) => (v === 'active' ? 'a' : v === 'inactive' ? 'i' : v)));
  const parts: string[] = [];
  if (letters.has('a')) parts.push(`e.status = 'A'`);
  if (letters.has('i')) parts.push(`e.status = 'I'`);
  const refined = [...letters].filter((l) => l !== 'a' && l !== 'i');
  if (refined.length) {
    parts.push(
      `(e.status = 'I' AND EXISTS (SELECT 1 FROM registry.inactivations x WHERE x.document_number = e.document_number AND x.letter = ANY(${sql.p(refined)})))`,
    );
  }
  return `(${parts.join(' OR ')})`;
}

function conditions(sql: Sql, q: EntitySearch): string[] {
  const where: string[] = [];
  if (q.name !== undefined) {
    const key = nameKey(q.name);
    // One or two characters: a prefix of the name, not a fuzzy word.
    if (key.core === '') where.push('false');
    else if (key.core.length <= 2) where.push(`e.name_core LIKE ${sql.p(key.core)} || '%'`);
    else where.push(matchesAllWords(sql, 'entity_words', 'e.name_words', key.words));
  }
  if (q.status?.length) where.push(statusCondition(sql, q.status));
  if (q.entity_type?.length) where.push(`e.entity_type = ANY(${sql.p(q.entity_type)})`);
  // Every entity here is on the Florida registry.
  if (q.state !== undefined && q.state !== 'FL') where.push('false');
  if (q.principal_city !== undefined) where.push(`upper(e.principal_city) = upper(${sql.p(q.principal_city)})`);
  if (q.principal_state !== undefined) where.push(`coalesce(e.principal_state, 'FL') = ${sql.p(q.principal_state)}`);
  if (q.filed_after !== undefined) where.push(`e.filing_date >= ${sql.p(q.filed_after)}::date`);
  if (q.filed_before !== undefined) where.push(`e.filing_date <= ${sql.p(q.filed_before)}::date`);
  if (q.doc_number_prefix !== undefined) {
    where.push(`e.document_number LIKE ${sql.p(q.doc_number_prefix.toUpperCase().replace(/[\\%_]/g, '\\$&'))} || '%'`);
  }
  if (q.officer_name !== undefined) {
    const words = personKey(q.officer_name).words;
    where.push(`e.id IN (SELECT o.entity_id FROM registry.officers o WHERE ${matchesAllWords(sql, 'officer_words', 'o.name_words', words)})`);
  }
  if (q.ra_name !== undefined) where.push(matchesAllWords(sql, 'agent_words', 'e.agent_words', agentWords(q.ra_name)));
  return where;
}

function ordering(sql: Sql, q: EntitySearch): string {
  const sort = q.sort === undefined || (q.sort === 'relevance' && q.name === undefined) ? (q.name ? 'relevance' : 'date_newest') : q.sort;
  switch (sort) {
    case 'name_asc':
      return 'name_norm ASC, document_number ASC';
    case 'name_desc':
      return 'name_norm DESC, document_number ASC';
    case 'date_oldest':
      return 'filing_date ASC NULLS LAST, document_number ASC';
    case 'date_newest':
      return 'filing_date DESC NULLS LAST, document_number ASC';
    default: {
      const key = nameKey(q.name!);
      const norm = sql.p(key.norm);
      const core = sql.p(key.core);
      // Exact (the full name first, then without its legal form), prefix, then similarity.
      return `CASE WHEN name_norm = ${norm} THEN 0 WHEN name_core = ${core} THEN 1 WHEN name_core LIKE ${core} || '%' THEN 2 ELSE 3 END,
              similarity(name_core, ${core}) DESC, filing_date DESC NULLS LAST, document_number ASC`;
    }
  }
}

export interface EntityPage extends Page<EntityHit> {
  facets?: Record<string, Array<{ value: string; count: number }>>;
}

export async function searchEntities(pool: pg.Pool, q: EntitySearch): Promise<EntityPage> {
  const sql = new Sql();
  const where = conditions(sql, q);
  const order = ordering(sql, q);
  const facets = (q.facets ?? []).map(
    (f) => `'${f}', (SELECT coalesce(json_agg(json_build_object('value', v, 'count', c) ORDER BY c DESC, v ASC), '[]')
       FROM (SELECT ${FACET_EXPR[f]} AS v, count(*) AS c FROM m WHERE ${FACET_EXPR[f]} IS NOT NULL GROUP BY 1 ORDER BY 2 DESC, 1 ASC LIMIT 20) f)`,
  );
  const matches = `SELECT e.* FROM registry.entities e ${where.length ? `WHERE ${where.join(' AND ')}` : ''}`;
  const text = pageQuery(matches, order, entityHitColumns('page'), sql.p(q.limit), sql.p(q.offset), facets.length ? `json_build_object(${facets.join(', ')}) AS facets` : '');
  const { rows } = await pool.query(text, sql.params);
  const page: EntityPage = toPage<EntityHit>(rows[0]);
  if (rows[0].facets) page.facets = rows[0].facets;
  return page;
}
