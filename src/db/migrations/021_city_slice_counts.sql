-- Counts of each frequent word and one- or two-character name prefix within each principal city
-- (slices 'c:CITY|w:WORD' and 'c:CITY|p:X', without status, type or year), as citySlicesSql in
-- src/registry/import/derived.ts builds them at a full load and daily files move them. Counted here
-- once for a dataset loaded before them: a search would otherwise find these slices empty.
INSERT INTO registry.entity_counts (slice, status, entity_type, filing_year, n)
SELECT slice, '', '', 0, count(*) FROM (
  SELECT 'c:' || upper(e.principal_city) || '|w:' || w AS slice
  FROM registry.entities e CROSS JOIN LATERAL unnest(e.name_words) AS w
  WHERE e.principal_city IS NOT NULL AND w IN (SELECT word FROM registry.entity_words WHERE frequent)
  UNION ALL SELECT 'c:' || upper(e.principal_city) || '|p:' || left(e.name_core, 1) FROM registry.entities e
  WHERE e.principal_city IS NOT NULL AND e.name_core <> ''
  UNION ALL SELECT 'c:' || upper(e.principal_city) || '|p:' || left(e.name_core, 2) FROM registry.entities e
  WHERE e.principal_city IS NOT NULL AND length(e.name_core) >= 2
) x GROUP BY slice;
