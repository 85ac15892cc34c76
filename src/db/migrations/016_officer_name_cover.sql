-- A common surname alone (SMITH: 159,000 officer rows at 12.6 million entities) ranks its exact and
-- prefix tiers by (trigram count, name, document, slot) over rows found by name_norm: with those
-- columns in the name_norm index, the tiers are read from the index alone instead of one heap page
-- per row (10,700 page reads for SMITH at one million entities, 480 with this index).
CREATE INDEX officers_name_norm_cover_idx ON registry.officers (name_norm)
  INCLUDE (name_words, name_trgm, name, document_number, slot, entity_id);
DROP INDEX registry.officers_name_norm_idx;
