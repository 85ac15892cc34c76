// Facet counts of an entity query: per facet, its most frequent values over the whole match set
// (the same predicate as the page and total), cached with the query's total.
import type pg from 'pg';
import type { FacetCounts } from '../shapes.js';
import { statusLabelSql } from '../status.js';
import { FACET_VALUES } from '../thresholds.js';
import type { Facet } from './query.js';

const FACET_EXPR: Record<Facet, string> = {
  status: statusLabelSql('e.status'),
  entity_type: 'e.entity_type',
  principal_city: 'e.principal_city',
  principal_state: `coalesce(e.principal_state, 'FL')`,
  filing_year: `extract(year FROM e.filing_date)::int::text`,
  state_of_formation: 'e.state_of_formation',
};

/** Each facet's values over the matches of `where` (with its `params`), by count. */
export async function facetCounts(
  pool: pg.Pool,
  params: unknown[],
  where: string,
  facets: readonly Facet[],
): Promise<FacetCounts> {
  const out: FacetCounts = {};
  for (const f of facets) {
    const { rows } = await pool.query<{ value: string; count: number }>(
      `SELECT ${FACET_EXPR[f]} AS value, count(*)::int AS count
       FROM registry.entities e WHERE ${where} AND ${FACET_EXPR[f]} IS NOT NULL
       GROUP BY 1 ORDER BY 2 DESC, 1 ASC LIMIT ${FACET_VALUES}`,
      params,
    );
    out[f] = rows;
  }
  return out;
}
