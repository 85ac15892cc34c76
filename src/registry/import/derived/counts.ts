// Precomputed counts of entities (registry.entity_counts by slice, status, type and filing year;
// registry.entity_day_counts by status, type and filing day), for exact totals without counting matches.
import type pg from 'pg';
import type { Derivation, Schema } from './derivation.js';

/**
 * The count slices each entity row of `src` belongs to (see registry.entity_counts): all,
 * its city, the first one and two characters of its name; in `wordSlicesSql`, its words with counts of their own; in
 * `citySlicesSql`, those words and characters within its city.
 * One plain scan per slice kind: a lateral union per row costs many times more.
 */
function slicesSql(src: string): string {
  const year = 'coalesce(extract(year FROM filing_date)::int, -1) AS filing_year';
  return [
    `SELECT ''::text AS slice, status, entity_type, ${year} FROM ${src}`,
    `SELECT 'c:' || upper(principal_city), status, entity_type, ${year} FROM ${src} WHERE principal_city IS NOT NULL`,
    `SELECT 'p:' || left(name_core, 1), status, entity_type, ${year} FROM ${src} WHERE name_core <> ''`,
    `SELECT 'p:' || left(name_core, 2), status, entity_type, ${year} FROM ${src} WHERE length(name_core) >= 2`,
  ].join(' UNION ALL ');
}

/**
 * The word slices of the entity rows of `src`: one per word with counts of its own (`which`: all of them,
 * or those not frequent).
 */
function wordSlicesSql(s: Schema, src: string, which = 'counted'): string {
  return `
    SELECT 'w:' || w AS slice, e.status, e.entity_type,
           coalesce(extract(year FROM e.filing_date)::int, -1) AS filing_year
    FROM ${src} e CROSS JOIN LATERAL unnest(e.name_words) AS w
    WHERE w IN (SELECT word FROM ${s}.entity_words WHERE ${which})`;
}

/**
 * The count slices of a frequent word or a one- or two-character name prefix within a principal city
 * ('c:CITY|w:WORD', 'c:CITY|p:X'), counted without status, type or year ('', '', 0): such a total
 * with no other filter was counted by a bitmap over tens of thousands of rows (PROPERTIES in MIAMI:
 * 2.8 s at 12.6 million entities), and with status, type and year it would be millions of rows.
 */
function citySlicesSql(s: Schema, src: string): string {
  const city = `'c:' || upper(e.principal_city) || '|'`;
  return `
    SELECT ${city} || 'w:' || w, '', '', 0 FROM ${src} e CROSS JOIN LATERAL unnest(e.name_words) AS w
    WHERE e.principal_city IS NOT NULL AND w IN (SELECT word FROM ${s}.entity_words WHERE frequent)
    UNION ALL SELECT ${city} || 'p:' || left(e.name_core, 1), '', '', 0 FROM ${src} e
    WHERE e.principal_city IS NOT NULL AND e.name_core <> ''
    UNION ALL SELECT ${city} || 'p:' || left(e.name_core, 2), '', '', 0 FROM ${src} e
    WHERE e.principal_city IS NOT NULL AND length(e.name_core) >= 2`;
}

/**
 * The count slices of a full load, grouped in three scans where `allSlicesSql` takes eight: all and
 * each city from the entities, each frequent word and prefix, alone and within a city, from the
 * postings just built (one per row of such a slice, holding its status, type, date and city), and the
 * other words with counts of their own from the entities. Moves by difference go through
 * `allSlicesSql`; a test holds the two to the same rows.
 */
function loadCountsSql(s: Schema): string {
  const inCity = 'GROUPING(city) = 0';
  return `
    SELECT CASE WHEN ${inCity} THEN 'c:' || city ELSE '' END, status, entity_type, filing_year, count(*)
    FROM (SELECT upper(principal_city) AS city, status, entity_type,
                 coalesce(extract(year FROM filing_date)::int, -1) AS filing_year FROM ${s}.entities) e
    GROUP BY GROUPING SETS ((status, entity_type, filing_year), (city, status, entity_type, filing_year))
    HAVING NOT ${inCity} OR city IS NOT NULL
    UNION ALL
    SELECT CASE WHEN ${inCity} THEN 'c:' || city || '|' || slice ELSE slice END,
           CASE WHEN ${inCity} THEN '' ELSE status END, CASE WHEN ${inCity} THEN '' ELSE entity_type END,
           CASE WHEN ${inCity} THEN 0 ELSE filing_year END, count(*)
    FROM (SELECT slice, status, entity_type, city,
                 CASE WHEN filed = '-infinity' THEN -1 ELSE extract(year FROM filed)::int END AS filing_year
          FROM ${s}.entity_postings) p
    GROUP BY GROUPING SETS ((slice, status, entity_type, filing_year), (city, slice))
    HAVING NOT ${inCity} OR city IS NOT NULL
    UNION ALL
    SELECT slice, status, entity_type, filing_year, count(*)
    FROM (${wordSlicesSql(s, `${s}.entities`, 'counted AND NOT frequent')}) w
    GROUP BY 1, 2, 3, 4`;
}

/** Every count slice of the entity rows of `src`. */
const allSlicesSql = (s: Schema, src: string): string =>
  `${slicesSql(src)} UNION ALL ${wordSlicesSql(s, src)} UNION ALL ${citySlicesSql(s, src)}`;

/** The slice counts (once the entity dictionary and the postings are built), and the day counts. */
export function countDerivations(s: Schema): Derivation[] {
  return [
    {
      table: 'entity_counts',
      after: ['entity_words', 'entity_postings'],
      reads: 'entities',
      build: (c) =>
        c.query(`INSERT INTO ${s}.entity_counts (slice, status, entity_type, filing_year, n) ${loadCountsSql(s)}`),
    },
    {
      table: 'entity_day_counts',
      after: [],
      reads: 'entities',
      build: (c) =>
        c.query(`
          INSERT INTO ${s}.entity_day_counts (status, entity_type, filing_date, n)
          SELECT status, entity_type, filing_date, count(*) FROM ${s}.entities
          WHERE filing_date IS NOT NULL GROUP BY 1, 2, 3`),
    },
  ];
}

/**
 * After a change set: moves both counts by the entity rows it replaced (`old_entities`)
 * and brought (`chg_entities`).
 */
export async function moveCounts(client: pg.PoolClient, s: Schema): Promise<void> {
  await client.query(`
    INSERT INTO ${s}.entity_counts AS c (slice, status, entity_type, filing_year, n)
    SELECT slice, status, entity_type, filing_year, sum(delta) FROM (
      SELECT *, 1 AS delta FROM (${allSlicesSql(s, 'chg_entities')}) a
      UNION ALL SELECT *, -1 FROM (${allSlicesSql(s, 'old_entities')}) b
    ) moves GROUP BY 1, 2, 3, 4 HAVING sum(delta) <> 0
    ON CONFLICT (slice, status, entity_type, filing_year) DO UPDATE SET n = c.n + excluded.n`);
  await client.query(`
    INSERT INTO ${s}.entity_day_counts AS c (status, entity_type, filing_date, n)
    SELECT status, entity_type, filing_date, sum(delta) FROM (
      SELECT status, entity_type, filing_date, 1 AS delta FROM chg_entities WHERE filing_date IS NOT NULL
      UNION ALL SELECT status, entity_type, filing_date, -1 FROM old_entities WHERE filing_date IS NOT NULL
    ) moves GROUP BY 1, 2, 3 HAVING sum(delta) <> 0
    ON CONFLICT (filing_date, status, entity_type) DO UPDATE SET n = c.n + excluded.n`);
}
