// Filings: formations (an entity's filing on its file date) and events (on their filed date), in
// one list ordered by filing date descending, then document number. An event of an entity the
// registry no longer lists shows a blank status.
import type pg from 'pg';
import { keysetRows, type KeyColumn } from './keyset.js';
import { pageQuery, toPage, type PageRequest } from './paging.js';
import { entitiesAt, eventsAt } from './pinned.js';
import type { FilingHit } from './shapes.js';
import { Sql } from './sql.js';
import { statusLabelSql } from './status.js';
import { firstPage, walkVersions, type Walk, type WalkPage } from './walk.js';

/** Filings with a filing date in [from, to] (inclusive dates): formations of `entities` (alias e), `events` (ev). */
function filingMatches(sql: Sql, entities: string, events: string, from: string, to: string): string {
  const f = sql.p(from);
  const t = sql.p(to);
  return `
    SELECT e.document_number, e.name AS entity_name, e.entity_type, 'FORMATION' AS filing_type, e.filing_date,
           e.status, 0 AS seq
    FROM ${entities} WHERE e.filing_date BETWEEN ${f}::date AND ${t}::date
    UNION ALL
    SELECT ev.document_number, coalesce(en.name, ev.entity_name, ''), coalesce(en.entity_type, ''), ev.filing_type,
           ev.filed_date, en.status, ev.sequence
    FROM ${events} LEFT JOIN registry.entities en ON en.document_number = ev.document_number
    WHERE ev.filed_date BETWEEN ${f}::date AND ${t}::date`;
}

const FILING_COLUMNS = (r: string): string => `${r}.document_number, ${r}.entity_name, ${r}.entity_type,
  ${r}.filing_type, ${r}.filing_date::text AS filing_date, coalesce(${statusLabelSql(`${r}.status`)}, '') AS status`;

/** Newest first, then by document number, then formation before events in their order: every page's order. */
const FILING_KEYS: readonly KeyColumn[] = [
  { expr: 'm.filing_date', desc: true, type: 'date' },
  { expr: 'm.document_number', desc: false, type: 'text' },
  { expr: 'm.seq', desc: false, type: 'int' },
];

async function filingsPage(pool: pg.Pool, from: string, to: string, page: PageRequest) {
  const sql = new Sql();
  const matches = filingMatches(sql, 'registry.entities e', 'registry.events ev', from, to);
  const order = 'filing_date DESC, document_number ASC, seq ASC';
  const { rows } = await pool.query(
    pageQuery(matches, order, `${FILING_COLUMNS('page')}, page.seq`, sql.p(page.limit), sql.p(page.offset)),
    sql.params,
  );
  return toPage<FilingHit & { seq: number }>(rows[0]);
}

/**
 * A page of the filings in [from, to] as a walk's (src/search/walk.ts): read on from the last filing's keys, the
 * formations pinned to the walk's version.
 */
export async function walkFilings(
  pool: pg.Pool,
  from: string,
  to: string,
  page: PageRequest,
  walk: Walk | null,
): Promise<WalkPage<FilingHit>> {
  if (!walk) {
    const first = await firstPage(pool, () => filingsPage(pool, from, to, page));
    const lastHit = first.hits.at(-1);
    return {
      hits: first.hits.map(({ seq: _seq, ...hit }) => hit),
      total: first.total,
      version: first.version,
      last: lastHit ? [lastHit.filing_date, lastHit.document_number, lastHit.seq] : null,
    };
  }
  const now = await walkVersions(pool, walk);
  const sql = new Sql();
  const pinned = filingMatches(sql, entitiesAt(sql, walk.version, now), eventsAt(sql, walk.version, now), from, to);
  const matches = `(${pinned}) m`;
  const q = {
    select: FILING_COLUMNS('m'),
    from: [{ from: matches, where: 'true' }],
    where: 'true',
    keys: FILING_KEYS,
    sql,
  };
  const { rows, last } = await keysetRows<FilingHit>(pool, q, walk.after, page.limit);
  return { hits: rows, total: walk.total, version: walk.version, last };
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
