-- A common surname alone (SMITH: 159,026 officer rows at 12.6 million entities) ranks its prefix
-- tier, the names beginning with it, by (trigram count, name, document number, slot). Read through
-- the name_norm index, that was every such name, then a sort: 220 ms warm for SMITH. The names whose
-- first word it is come off this index already in that order, a page's worth at a time; the few
-- whose first word only begins with it (SMITHSON ... SMITH) are merged in (people.ts).
CREATE INDEX officers_first_word_order_idx ON registry.officers ((split_part(name_norm, ' ', 1)), name_trgm, name, document_number, slot)
  INCLUDE (entity_id);
