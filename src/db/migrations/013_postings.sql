-- Ranked postings (docs/search.md, "Broad queries"): for each frequent name word and each one- and
-- two-character name prefix, its entities in the order a query of exactly that word or prefix ranks
-- them after its exact tiers: prefix tier first, then trigram similarity to the slice's text, then
-- newest filing date, then document number. The first page of HOLDINGS or "A" is then an index
-- range read instead of ranking hundreds of thousands of matches.
--   slice  'w:WORD' or 'p:X' (as in entity_counts)
--   prefix the name (without legal form) begins with the slice's text
--   sim    similarity(name_core, the slice's text), the same float the query would compute
--   filed  the filing date, '-infinity' for none (so descending order puts no date last, and
--          every column of the key is comparable with `=` when a daily change removes a row)
CREATE TABLE registry.entity_postings (
  slice            text COLLATE "C" NOT NULL,
  prefix           boolean NOT NULL,
  sim              real NOT NULL,
  filed            date NOT NULL,
  document_number  text COLLATE "C" NOT NULL,
  id               integer NOT NULL
);

INSERT INTO registry.entity_postings (slice, prefix, sim, filed, document_number, id)
SELECT 'w:' || w, e.name_core LIKE w || '%', similarity(e.name_core, w), coalesce(e.filing_date, '-infinity'), e.document_number, e.id
FROM registry.entities e CROSS JOIN LATERAL unnest(e.name_words) AS w
WHERE w IN (SELECT word FROM registry.entity_words WHERE frequent)
UNION ALL
SELECT 'p:' || left(name_core, 1), true, similarity(name_core, left(name_core, 1)), coalesce(filing_date, '-infinity'), document_number, id
FROM registry.entities WHERE name_core <> ''
UNION ALL
SELECT 'p:' || left(name_core, 2), true, similarity(name_core, left(name_core, 2)), coalesce(filing_date, '-infinity'), document_number, id
FROM registry.entities WHERE length(name_core) >= 2;

CREATE INDEX entity_postings_rank_idx ON registry.entity_postings (slice, prefix DESC, sim DESC, filed DESC, document_number);
ANALYZE registry.entity_postings;
