-- Each dictionary's deletion keys (migration 019) as rows of a table of their own with a btree,
-- instead of a GIN index over an expression of the word. Nearly every key is distinct, and GIN spent
-- most of its build inserting them one by one: at 12.6 million entities the entity dictionary's
-- index (17.4 million keys of 738,629 words) took 56.7 CPU-seconds to build alone, of which computing
-- the keys was 6.5; the table and its btree took 11.7 + 11.5 (on a slower machine the index 51 to 60,
-- the table, btree and vacuum 33 to 36; docs/search.md, twenty-third session). The btree (604 MB) is
-- smaller than the GIN index was (648 MB), and a lookup is about ten times faster. A query word's
-- neighbours are then the words of the rows whose key is one of its deletions (src/search/terms.ts).
-- The table keeps a key a word reaches twice (AAB loses either A) twice, as the array did: a lookup
-- does not count.
-- A full load builds these tables from their dictionaries (derived.ts); a daily file adds the keys
-- of the words it brings.
CREATE TABLE registry.entity_word_keys (key text COLLATE "C" NOT NULL, word text COLLATE "C" NOT NULL);
CREATE TABLE registry.officer_word_keys (key text COLLATE "C" NOT NULL, word text COLLATE "C" NOT NULL);
CREATE TABLE registry.agent_word_keys (key text COLLATE "C" NOT NULL, word text COLLATE "C" NOT NULL);
CREATE TABLE registry.address_word_keys (key text COLLATE "C" NOT NULL, word text COLLATE "C" NOT NULL);

INSERT INTO registry.entity_word_keys (key, word) SELECT k, word FROM registry.entity_words, unnest(registry.word_keys(word)) AS k;
INSERT INTO registry.officer_word_keys (key, word) SELECT k, word FROM registry.officer_words, unnest(registry.word_keys(word)) AS k;
INSERT INTO registry.agent_word_keys (key, word) SELECT k, word FROM registry.agent_words, unnest(registry.word_keys(word)) AS k;
INSERT INTO registry.address_word_keys (key, word) SELECT k, word FROM registry.address_words, unnest(registry.word_keys(word)) AS k;

-- The word in the index too: a lookup reads the index alone.
CREATE INDEX entity_word_keys_idx ON registry.entity_word_keys (key, word);
CREATE INDEX officer_word_keys_idx ON registry.officer_word_keys (key, word);
CREATE INDEX agent_word_keys_idx ON registry.agent_word_keys (key, word);
CREATE INDEX address_word_keys_idx ON registry.address_word_keys (key, word);

DROP INDEX registry.entity_words_keys_idx;
DROP INDEX registry.officer_words_keys_idx;
DROP INDEX registry.agent_words_keys_idx;
DROP INDEX registry.address_words_keys_idx;

ANALYZE registry.entity_word_keys, registry.officer_word_keys, registry.agent_word_keys, registry.address_word_keys;
