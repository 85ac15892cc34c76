-- Counts by status, type and filing year of each word of entity names in 1,000 rows or more
-- (COUNTED_WORD in src/registry/import/derived.ts), as frequent words have had since migration 010:
-- slices 'w:WORD' of entity_counts. A first word with such filters (HILL filed since 2022: 15,209
-- matches at 12.6 million entities) was counted by reading a table page per match, 4.3 s after a
-- restart with caches dropped; its total is now added up from these counts (src/search/entities.ts),
-- and the page read off the first-word index with the filters (62 ms in all). A full load
-- sets the flag and builds the counts, and daily files move them; counted here once for a dataset
-- loaded before them.
ALTER TABLE registry.entity_words ADD COLUMN counted boolean NOT NULL DEFAULT false;
UPDATE registry.entity_words SET counted = true WHERE frequent OR n >= 1000;
INSERT INTO registry.entity_counts (slice, status, entity_type, filing_year, n)
SELECT 'w:' || w, e.status, e.entity_type, coalesce(extract(year FROM e.filing_date)::int, -1), count(*)
FROM registry.entities e CROSS JOIN LATERAL unnest(e.name_words) AS w
WHERE w IN (SELECT word FROM registry.entity_words WHERE counted AND NOT frequent)
GROUP BY 1, 2, 3, 4;
