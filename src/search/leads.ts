// The new-business lead feed: formations with the county of their principal ZIP, newest first.
import type pg from 'pg';
import { pageQuery, toPage, type Page, type PageRequest } from './paging.js';
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

export async function searchLeads(pool: pg.Pool, q: LeadQuery): Promise<Page<LeadHit>> {
  const sql = new Sql();
  const where = ['e.filing_date IS NOT NULL'];
  if (q.county !== undefined) where.push(`z.county = ${sql.p(q.county)}`);
  if (q.city !== undefined) where.push(`upper(e.principal_city) = upper(${sql.p(q.city)})`);
  if (q.entity_type !== undefined) where.push(`e.entity_type = ${sql.p(q.entity_type)}`);
  if (q.date_from !== undefined) where.push(`e.filing_date >= ${sql.p(q.date_from)}::date`);
  // date_to is inclusive: the bound is the next day, exclusive.
  if (q.date_to !== undefined) where.push(`e.filing_date < ${sql.p(q.date_to)}::date + 1`);
  const matches = `SELECT e.document_number, e.name, e.entity_type, e.filing_date, e.principal_city, e.principal_state,
                          e.principal_zip5, z.county
                   FROM registry.entities e LEFT JOIN zip_counties z ON z.zip5 = e.principal_zip5
                   WHERE ${where.join(' AND ')}`;
  const hit = `page.document_number, page.name AS entity_name, page.entity_type, page.filing_date::text AS filing_date,
               coalesce(page.principal_city, '') AS city, coalesce(page.principal_state, 'FL') AS state,
               coalesce(page.principal_zip5, '') AS zip, page.county`;
  const { rows } = await pool.query(
    pageQuery(matches, 'filing_date DESC, document_number ASC', hit, sql.p(q.limit), sql.p(q.offset)),
    sql.params,
  );
  return toPage<LeadHit>(rows[0]);
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
