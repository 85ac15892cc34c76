// Filings: formations (an entity's filing on its file date) and events (on their filed date), in
// one list ordered by filing date descending, then document number. An event of an entity the
// registry no longer lists shows a blank status.
import type pg from 'pg';
import { pageQuery, toPage, type Page, type PageRequest } from './paging.js';
import type { FilingHit } from './shapes.js';
import { Sql } from './sql.js';
import { statusLabelSql } from './status.js';

/** Filings with a filing date in [from, to] (inclusive dates). */
export async function filingsBetween(
  pool: pg.Pool,
  from: string,
  to: string,
  page: PageRequest,
): Promise<Page<FilingHit>> {
  const sql = new Sql();
  const f = sql.p(from);
  const t = sql.p(to);
  const matches = `
    SELECT e.document_number, e.name AS entity_name, e.entity_type, 'FORMATION' AS filing_type, e.filing_date,
           e.status, 0 AS seq
    FROM registry.entities e WHERE e.filing_date BETWEEN ${f}::date AND ${t}::date
    UNION ALL
    SELECT ev.document_number, coalesce(en.name, ev.entity_name, ''), coalesce(en.entity_type, ''), ev.filing_type,
           ev.filed_date, en.status, ev.sequence
    FROM registry.events ev LEFT JOIN registry.entities en ON en.document_number = ev.document_number
    WHERE ev.filed_date BETWEEN ${f}::date AND ${t}::date`;
  const hit = `page.document_number, page.entity_name, page.entity_type, page.filing_type,
               page.filing_date::text AS filing_date,
               coalesce(${statusLabelSql('page.status')}, '') AS status`;
  const order = 'filing_date DESC, document_number ASC, seq ASC';
  const { rows } = await pool.query(pageQuery(matches, order, hit, sql.p(page.limit), sql.p(page.offset)), sql.params);
  return toPage<FilingHit>(rows[0]);
}

/** The newest date (up to `today`) on which anything was filed: what "the latest filings" means. */
export async function latestFilingDate(pool: pg.Pool, today: string): Promise<string | null> {
  const { rows } = await pool.query<{ d: string | null }>(
    `SELECT greatest((SELECT max(filing_date) FROM registry.entities WHERE filing_date <= $1::date),
                     (SELECT max(filed_date) FROM registry.events WHERE filed_date <= $1::date))::text AS d`,
    [today],
  );
  return rows[0]?.d ?? null;
}
