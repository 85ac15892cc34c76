// The precomputed entity counts against a recount of the entities as they are, row by row.
import type pg from 'pg';

/**
 * Rows of `entity_counts` (all, city, word and prefix slices by status, type and filing year; the
 * slices within a city aside) that differ from a count of the entities now: none when they agree.
 */
export async function countsDisagree(pool: pg.Pool): Promise<unknown[]> {
  const { rows } = await pool.query(`
    WITH real AS (
      SELECT k AS slice, status, entity_type, coalesce(extract(year FROM filing_date)::int, -1) AS filing_year,
             count(*)::int AS n
      FROM registry.entities e CROSS JOIN LATERAL (
        SELECT '' UNION ALL SELECT 'c:' || upper(e.principal_city) WHERE e.principal_city IS NOT NULL
        UNION ALL SELECT 'w:' || w FROM unnest(e.name_words) w
                  WHERE w IN (SELECT word FROM registry.entity_words WHERE counted)
        UNION ALL SELECT 'p:' || left(e.name_core, 1) WHERE e.name_core <> ''
        UNION ALL SELECT 'p:' || left(e.name_core, 2) WHERE length(e.name_core) >= 2) AS x(k)
      GROUP BY 1, 2, 3, 4),
    kept AS (SELECT slice, status, entity_type, filing_year, n FROM registry.entity_counts
             WHERE slice NOT LIKE 'c:%|%' AND n <> 0)
    SELECT * FROM real FULL JOIN kept USING (slice, status, entity_type, filing_year)
    WHERE real.n IS DISTINCT FROM kept.n`);
  return rows;
}
