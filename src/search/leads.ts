// The new-business lead feed: formations with the county of their principal ZIP, newest first.
import type pg from 'pg';
import { keysetRows, type KeyColumn } from './keyset.js';
import { pageQuery, toPage, type Page, type PageRequest } from './paging.js';
import { entitySources } from './pinned.js';
import { firstPage, walkVersions, type Walk, type WalkPage } from './walk.js';
import { LeadFileRow, type LeadHit } from './shapes.js';
import { Sql } from './sql.js';
import { statusLabelSql } from './status.js';

export interface LeadQuery extends PageRequest {
  /** A canonical county name (see registry/counties.ts). */
  county?: string;
  city?: string;
  entity_type?: string;
  date_from?: string;
  date_to?: string;
}

/** The lead feed's predicate over entities `e` joined to their ZIP's county `z`. */
function leadConditions(q: LeadQuery, sql: Sql): string {
  const where = ['e.filing_date IS NOT NULL'];
  if (q.county !== undefined) where.push(`z.county = ${sql.p(q.county)}`);
  if (q.city !== undefined) where.push(`upper(e.principal_city) = upper(${sql.p(q.city)})`);
  if (q.entity_type !== undefined) where.push(`e.entity_type = ${sql.p(q.entity_type)}`);
  if (q.date_from !== undefined) where.push(`e.filing_date >= ${sql.p(q.date_from)}::date`);
  // date_to is inclusive: the bound is the next day, exclusive.
  if (q.date_to !== undefined) where.push(`e.filing_date < ${sql.p(q.date_to)}::date + 1`);
  return where.join(' AND ');
}

const LEAD_COLUMNS = (r: string): string => `${r}.document_number, ${r}.name AS entity_name, ${r}.entity_type,
  ${r}.filing_date::text AS filing_date, coalesce(${r}.principal_city, '') AS city,
  coalesce(${r}.principal_state, 'FL') AS state, coalesce(${r}.principal_zip5, '') AS zip`;

async function searchLeads(pool: pg.Pool, q: LeadQuery): Promise<Page<LeadHit>> {
  const sql = new Sql();
  const where = leadConditions(q, sql);
  const matches = `SELECT e.document_number, e.name, e.entity_type, e.filing_date, e.principal_city, e.principal_state,
                          e.principal_zip5, z.county
                   FROM registry.entities e LEFT JOIN zip_counties z ON z.zip5 = e.principal_zip5
                   WHERE ${where}`;
  const { rows } = await pool.query(
    pageQuery(
      matches,
      'filing_date DESC, document_number ASC',
      `${LEAD_COLUMNS('page')}, page.county`,
      sql.p(q.limit),
      sql.p(q.offset),
    ),
    sql.params,
  );
  return toPage<LeadHit>(rows[0]);
}

/** Newest first, then by document number: the order of every lead page. */
const LEAD_KEYS: readonly KeyColumn[] = [
  { expr: 'e.filing_date', desc: true, type: 'date' },
  { expr: 'e.document_number', desc: false, type: 'text' },
];

/** A page of the lead feed as a walk's (src/search/walk.ts): read on from the last lead's keys, pinned. */
export async function walkLeads(pool: pg.Pool, q: LeadQuery, walk: Walk | null): Promise<WalkPage<LeadHit>> {
  if (!walk) {
    const page = await firstPage(pool, () => searchLeads(pool, q));
    const lastHit = page.hits.at(-1);
    return { ...page, last: lastHit ? [lastHit.filing_date, lastHit.document_number] : null };
  }
  const now = await walkVersions(pool, walk);
  const sql = new Sql();
  const from = entitySources(sql, walk.version, now).map((s) => ({
    from: `${s.from} LEFT JOIN zip_counties z ON z.zip5 = e.principal_zip5`,
    where: s.where,
  }));
  const where = leadConditions(q, sql);
  const select = `${LEAD_COLUMNS('e')}, z.county`;
  const { rows, last } = await keysetRows<LeadHit>(
    pool,
    { select, from, where, keys: LEAD_KEYS, sql },
    walk.after,
    q.limit,
  );
  return { hits: rows, total: walk.total, version: walk.version, last };
}

/** Every formation filed on `date`, enriched: the lead feed's daily file. */
export async function leadFileRows(pool: pg.Pool, date: string): Promise<LeadFileRow[]> {
  const { rows } = await pool.query<LeadFileRow>(
    `SELECT e.document_number, e.name AS entity_name, e.entity_type,
            ${statusLabelSql('e.status')} AS status,
            e.filing_date::text AS filing_date, z.county, e.fei AS fei_ein,
            e.principal_addr1 AS principal_address1, e.principal_addr2 AS principal_address2, e.principal_city,
            coalesce(e.principal_state, 'FL') AS principal_state, e.principal_zip5 AS principal_zip,
            e.mailing_addr1 AS mailing_address1, e.mailing_addr2 AS mailing_address2, e.mailing_city, e.mailing_state,
            e.mailing_zip, e.agent_name AS registered_agent_name, e.agent_addr AS registered_agent_address,
            e.agent_city AS registered_agent_city, e.agent_state AS registered_agent_state,
            e.agent_zip AS registered_agent_zip,
            coalesce((SELECT string_agg(concat_ws(': ', nullif(o.title, ''), o.name), '; ' ORDER BY o.slot)
                      FROM registry.officers o WHERE o.document_number = e.document_number), '') AS officers
     FROM registry.entities e LEFT JOIN zip_counties z ON z.zip5 = e.principal_zip5
     WHERE e.filing_date = $1::date
     ORDER BY e.document_number`,
    [date],
  );
  return rows;
}

/** The daily file's columns, in the order of LeadFileRow's keys. */
export const LEAD_FILE_COLUMNS = LeadFileRow.keyof().options;
