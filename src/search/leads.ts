// The new-business lead feed: formations with the county of their principal ZIP, newest first.
import type pg from 'pg';
import { pageQuery, toPage, type Page, type PageRequest } from './paging.js';
import { Sql } from './sql.js';

export interface LeadHit {
  document_number: string;
  entity_name: string;
  entity_type: string;
  filing_date: string;
  city: string;
  state: string;
  zip: string;
  county: string | null;
}

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
  const { rows } = await pool.query(pageQuery(matches, 'filing_date DESC, document_number ASC', hit, sql.p(q.limit), sql.p(q.offset)), sql.params);
  return toPage<LeadHit>(rows[0]);
}
