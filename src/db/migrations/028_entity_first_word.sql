-- A first word alone (PARADISE: 19,155 entities with its expansions at 12.6 million) below the
-- rank-whole limit was ranked whole: a heap page read per match, 150 to 250 ms warm and a second or
-- more four at a time with the pages on disk. Its prefix tier, the names whose core begins with it,
-- mostly has it as the first word: those rows hold all of its trigrams, so their similarity falls as
-- their trigram count grows, and they come off this index in final order a page's worth at a time
-- (ranked.ts, entities.ts). The few whose first word only begins with it are read apart.
CREATE INDEX entities_first_word_order_idx ON registry.entities
  ((split_part(name_core, ' ', 1)), name_trgm, filing_date DESC NULLS LAST, document_number) INCLUDE (id);
