-- A single common surname (SMITH, HILL) among 18 million officer slots: every match holds all of the
-- word's trigrams, so its similarity falls as the name's trigram count grows, and rows ordered by
-- (trigram count, name, document number, slot) are in final rank order (ranked.ts). This index
-- replaces the one on the trigram count alone, which the walk of other queries uses the same way.
CREATE INDEX officers_trgm_order_idx ON registry.officers (name_trgm, name, document_number, slot);
DROP INDEX registry.officers_name_trgm_idx;
