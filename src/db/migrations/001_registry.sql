-- The registry dataset in schema `registry`: entities, officers, events and what the importer derives
-- from them (agent groups, word dictionaries and their deletion keys, counts, ranked postings,
-- inactivations), plus the Florida ZIP-to-county table. A full load rebuilds every registry table in a
-- staging schema from these definitions (columns, storage options, keys, indexes) and swaps it in
-- (src/registry/import/snapshot.ts); daily files change the rows in place. docs/search.md says how the
-- search uses each index; docs/contract.md, "Search semantics", what a search means.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE EXTENSION IF NOT EXISTS fuzzystrmatch;
CREATE SCHEMA IF NOT EXISTS registry;

-- A word's deletion keys, SymSpell's method: two words are within e edits only when some string is
-- reached from each by at most e deletions, so a query word's neighbours share one of its keys.
-- `w` with at most `edits` characters deleted, `w` included: each set of positions deleted once, in
-- increasing order (a loop: a recursive query planned and ran a query per word, four times slower); a
-- string reached twice (AAB loses either A) is kept twice, which no lookup counts.
CREATE FUNCTION registry.word_deletes(w text, edits integer) RETURNS text[]
  LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  level text[] := ARRAY[w];
  -- The first position each string of the level may still lose (later than its last deletion).
  starts integer[] := ARRAY[1];
  next_level text[];
  next_starts integer[];
  keys text[] := ARRAY[w];
  s text;
BEGIN
  FOR k IN 1..edits LOOP
    next_level := '{}';
    next_starts := '{}';
    FOR m IN 1..cardinality(level) LOOP
      s := level[m];
      FOR i IN starts[m]..length(s) LOOP
        next_level := next_level || (left(s, i - 1) || substr(s, i + 1));
        next_starts := next_starts || i;
      END LOOP;
    END LOOP;
    keys := keys || next_level;
    level := next_level;
    starts := next_starts;
  END LOOP;
  RETURN keys;
END
$$;

-- A dictionary word's keys: the deletions a query word of its length may make (editsAllowed in
-- src/search/words/expansion.ts: one up to 7 letters, then two; the keys of short words, whose
-- typos are looked up otherwise, are the word alone). That is deep enough: a query
-- word q reaching w with s substitutions and |q| - |w| >= 0 insertions meets it at s deletions from
-- w, and s <= edits(q) - (|q| - |w|) <= edits(w); one shorter than w meets it at edits(q) <= edits(w).
CREATE FUNCTION registry.word_keys(w text) RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT registry.word_deletes(w, CASE WHEN length(w) >= 8 THEN 2 WHEN length(w) >= 4 THEN 1 ELSE 0 END)
$$;

-- A name's words within its principal city, one key each ("TAMPA|PEREZ"), upper-cased as the city
-- filter compares them; words hold no "|", so a key names one city and one word. A loop: an SQL
-- function's ARRAY(SELECT ... unnest) ran as a query per row, twice as slow over a full load.
CREATE FUNCTION registry.city_words(city text, words text[]) RETURNS text[]
  LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  c text := upper(coalesce(city, '')) || '|';
  keys text[] := '{}';
  w text;
BEGIN
  IF words IS NULL THEN RETURN keys; END IF;
  FOREACH w IN ARRAY words LOOP
    keys := keys || (c || w);
  END LOOP;
  RETURN keys;
END $$;

-- Pages keep 10% free (fillfactor 90): most daily changes (annual reports, officer lists) leave every
-- indexed column as it was, and with room on its page such a row is updated in place (HOT), so none of
-- the two dozen indexes takes a new entry, each a random read of a seldom cached leaf page.
CREATE TABLE registry.entities (
  id                     integer NOT NULL,
  document_number        text COLLATE "C" NOT NULL,
  name                   text NOT NULL,
  name_norm              text COLLATE "C" NOT NULL,
  name_core              text COLLATE "C" NOT NULL,
  name_words             text[] NOT NULL,
  status                 text NOT NULL,
  entity_type            text NOT NULL,
  filing_date            date,
  fei                    text,
  more_officers          boolean NOT NULL,
  last_transaction_date  date,
  state_of_formation     text,
  principal_addr1        text,
  principal_addr2        text,
  principal_city         text,
  principal_state        text,
  principal_zip          text,
  principal_zip5         text COLLATE "C",
  principal_zip4         text COLLATE "C",
  principal_country      text,
  mailing_addr1          text,
  mailing_addr2          text,
  mailing_city           text,
  mailing_state          text,
  mailing_zip            text,
  mailing_country        text,
  annual_reports         jsonb NOT NULL,
  agent_name             text,
  agent_name_type        text,
  agent_addr             text,
  agent_city             text,
  agent_state            text,
  agent_zip              text,
  agent_zip5             text COLLATE "C",
  agent_key              text COLLATE "C",
  agent_words            text[] NOT NULL,
  address_norm           text COLLATE "C",
  address_words          text[] NOT NULL,
  source_date            date NOT NULL,
  -- Distinct trigrams of name_core and address_norm, which bound a text's similarity to a query;
  -- written by the importer (trigramCount), where generated columns cost the server 15 µs a record.
  name_trgm              smallint NOT NULL,
  address_trgm           smallint NOT NULL,
  CONSTRAINT entities_pkey PRIMARY KEY (document_number)
) WITH (fillfactor = 90);
-- Search results and postings refer to entities by id.
CREATE UNIQUE INDEX entities_id_idx ON registry.entities (id);
-- Exact and prefix tiers of a name without its legal form.
CREATE INDEX entities_name_core_idx ON registry.entities (name_core);
-- Name sorts, and exact names with their legal form.
CREATE INDEX entities_name_norm_idx ON registry.entities (name_norm, document_number);
-- Walked outwards from a query's trigram count, which bounds a row's similarity (docs/search.md).
CREATE INDEX entities_name_trgm_idx ON registry.entities (name_trgm);
CREATE INDEX entities_address_trgm_idx ON registry.entities (address_trgm);
-- Word lookups of expanded query words; GIN without a pending list, which every search read in full
-- after daily files (autovacuum seldom merges it on tables this large).
CREATE INDEX entities_name_words_idx ON registry.entities USING gin (name_words) WITH (fastupdate = off);
CREATE INDEX entities_agent_words_idx ON registry.entities USING gin (agent_words) WITH (fastupdate = off);
CREATE INDEX entities_address_words_idx ON registry.entities USING gin (address_words) WITH (fastupdate = off);
-- A word in a city: exactly its rows, instead of every row of the word or of the city.
CREATE INDEX entities_city_words_idx ON registry.entities USING gin (registry.city_words(principal_city, name_words))
  WITH (fastupdate = off);
-- Listings by date newest first, and read backwards oldest first (no ascending index: 2.4 GB less a
-- load); the id lets the walk read index entries only.
CREATE INDEX entities_filing_date_idx ON registry.entities (filing_date DESC NULLS LAST, document_number) INCLUDE (id);
-- Listings of one status or one type by date, in either direction; the other filter and the id in the
-- index let a listing of both read index entries only.
CREATE INDEX entities_status_date_idx ON registry.entities (status, filing_date DESC NULLS LAST, document_number)
  INCLUDE (entity_type, id);
CREATE INDEX entities_type_date_idx ON registry.entities (entity_type, filing_date DESC NULLS LAST, document_number)
  INCLUDE (status, id);
-- Listings of one type by name (and type lookups).
CREATE INDEX entities_type_name_idx ON registry.entities (entity_type, name_norm, document_number);
-- A city's rows as one bitmap: deduplicated, a seventh of the size of the city's sort indexes.
CREATE INDEX entities_city_idx ON registry.entities (upper(principal_city));
-- Listings of one city by date or by name, walked in their sort order.
CREATE INDEX entities_city_date_idx ON registry.entities
  (upper(principal_city), filing_date DESC NULLS LAST, document_number);
CREATE INDEX entities_city_name_idx ON registry.entities (upper(principal_city), name_norm, document_number);
-- One or two characters within a city: exactly the matches, not a bitmap of every such name.
CREATE INDEX entities_city_core_idx ON registry.entities (upper(principal_city), name_core);
-- Addresses by ZIP, listed by address: the ZIP's rows come off the index in order.
CREATE INDEX entities_zip5_idx ON registry.entities (principal_zip5, address_norm, document_number);
-- A first word's prefix tier in final rank order (its rows hold all its trigrams), a page at a time.
CREATE INDEX entities_first_word_order_idx ON registry.entities
  ((split_part(name_core, ' ', 1)), name_trgm, filing_date DESC NULLS LAST, document_number) INCLUDE (id);

-- An entity's officer slots; a row is referred to as entity_id * 8 + slot.
CREATE TABLE registry.officers (
  entity_id        integer NOT NULL,
  document_number  text COLLATE "C" NOT NULL,
  slot             smallint NOT NULL,
  title            text NOT NULL,
  name_type        text NOT NULL,
  name             text NOT NULL,
  last_name        text,
  first_name       text,
  middle_initial   text,
  name_suffix      text,
  name_norm        text COLLATE "C" NOT NULL,
  name_sorted      text COLLATE "C" NOT NULL,
  name_words       text[] NOT NULL,
  -- Distinct trigrams of name_norm, written by the importer.
  name_trgm        smallint NOT NULL,
  CONSTRAINT officers_pkey PRIMARY KEY (document_number, slot)
);
CREATE INDEX officers_ref_idx ON registry.officers ((entity_id * 8 + slot));
CREATE INDEX officers_name_words_idx ON registry.officers USING gin (name_words) WITH (fastupdate = off);
-- Rows in (trigram count, name, document, slot) order are in final rank order for a single surname,
-- and the trigram count alone bounds the similarity of other queries' walks.
CREATE INDEX officers_trgm_order_idx ON registry.officers (name_trgm, name, document_number, slot);
-- Exact and prefix tiers of a common surname read from the index alone, not a heap page per row.
CREATE INDEX officers_name_norm_cover_idx ON registry.officers (name_norm)
  INCLUDE (name_words, name_trgm, name, document_number, slot, entity_id);
-- A surname's prefix tier in final rank order, a page at a time (src/search/people.ts).
CREATE INDEX officers_first_word_order_idx ON registry.officers
  ((split_part(name_norm, ' ', 1)), name_trgm, name, document_number, slot) INCLUDE (entity_id);

-- Registered agents, one row per normalized name and ZIP5 (a group), derived from the entities.
CREATE TABLE registry.agents (
  agent_key     text COLLATE "C" NOT NULL,
  zip5          text COLLATE "C" NOT NULL,
  name          text NOT NULL,
  city          text,
  state         text,
  entity_count  integer NOT NULL,
  name_sorted   text COLLATE "C" NOT NULL,
  name_words    text[] NOT NULL,
  -- Generated: the rows are built in SQL from the entities.
  name_trgm     smallint NOT NULL GENERATED ALWAYS AS (coalesce(array_length(show_trgm(agent_key), 1), 0)) STORED,
  -- Every kind of search row has an integer reference: an agent group its id.
  id            integer NOT NULL DEFAULT 0,
  CONSTRAINT agents_pkey PRIMARY KEY (agent_key, zip5)
);
CREATE UNIQUE INDEX agents_id_idx ON registry.agents (id);
CREATE INDEX agents_name_words_idx ON registry.agents USING gin (name_words) WITH (fastupdate = off);
CREATE INDEX agents_name_trgm_idx ON registry.agents (name_trgm);

-- How often each spelling of an agent (name, city and state as written, with its words) occurs among
-- the entities of its group: a daily file moves these counts and reshows only its groups from them,
-- instead of rereading every entity of a group (the largest serve several hundred thousand).
CREATE TABLE registry.agent_spellings (
  agent_key  text COLLATE "C" NOT NULL,
  zip5       text COLLATE "C" NOT NULL,
  name       text NOT NULL,
  city       text,
  state      text,
  words      text[] NOT NULL,
  n          integer NOT NULL
) WITH (fillfactor = 90);
CREATE INDEX agent_spellings_group_idx ON registry.agent_spellings (agent_key, zip5);

-- The word dictionaries, one per searchable kind of text, for fuzzy expansion of query words: each
-- word with the rows it is in (agent words: the agent groups). A frequent word (set at each full load)
-- matches itself only, and its exact count is its `n`; an entity word `counted` has counts of its own
-- by status, type and year in entity_counts. Pages keep room for a daily file's moves of `n` (HOT).
CREATE TABLE registry.entity_words (
  word      text COLLATE "C" NOT NULL,
  n         integer NOT NULL,
  frequent  boolean NOT NULL DEFAULT false,
  counted   boolean NOT NULL DEFAULT false,
  CONSTRAINT entity_words_pkey PRIMARY KEY (word)
) WITH (fillfactor = 90);
CREATE TABLE registry.officer_words (
  word      text COLLATE "C" NOT NULL,
  n         integer NOT NULL,
  frequent  boolean NOT NULL DEFAULT false,
  CONSTRAINT officer_words_pkey PRIMARY KEY (word)
) WITH (fillfactor = 90);
CREATE TABLE registry.agent_words (
  word      text COLLATE "C" NOT NULL,
  n         integer NOT NULL,
  frequent  boolean NOT NULL DEFAULT false,
  CONSTRAINT agent_words_pkey PRIMARY KEY (word)
) WITH (fillfactor = 90);
CREATE TABLE registry.address_words (
  word      text COLLATE "C" NOT NULL,
  n         integer NOT NULL,
  frequent  boolean NOT NULL DEFAULT false,
  CONSTRAINT address_words_pkey PRIMARY KEY (word)
) WITH (fillfactor = 90);

-- Each dictionary word's deletion keys (registry.word_keys) as rows: a query word's neighbours are the
-- words of the rows whose key is one of its deletions (src/search/words/expansion.ts). A btree builds several
-- times faster than a GIN index over the keys (nearly every key is distinct) and looks up ten times
-- faster; the word in it lets a lookup read the index alone.
CREATE TABLE registry.entity_word_keys (key text COLLATE "C" NOT NULL, word text COLLATE "C" NOT NULL);
CREATE TABLE registry.officer_word_keys (key text COLLATE "C" NOT NULL, word text COLLATE "C" NOT NULL);
CREATE TABLE registry.agent_word_keys (key text COLLATE "C" NOT NULL, word text COLLATE "C" NOT NULL);
CREATE TABLE registry.address_word_keys (key text COLLATE "C" NOT NULL, word text COLLATE "C" NOT NULL);
CREATE INDEX entity_word_keys_idx ON registry.entity_word_keys (key, word);
CREATE INDEX officer_word_keys_idx ON registry.officer_word_keys (key, word);
CREATE INDEX agent_word_keys_idx ON registry.agent_word_keys (key, word);
CREATE INDEX address_word_keys_idx ON registry.address_word_keys (key, word);

-- Counts of entities by slice, status, type and filing year, for exact totals of broad queries: slice
-- '' is every entity, 'w:WORD' those whose name holds a frequent or counted WORD, 'p:X' those whose
-- name begins with the 1 or 2 characters X, 'c:CITY' those in a principal city; 'c:CITY|w:WORD' and
-- 'c:CITY|p:X' a frequent word or prefix within a city, without status, type or year ('', '', 0).
-- filing_year -1 is no date. Pages keep room for a daily file's moves of `n` (HOT).
CREATE TABLE registry.entity_counts (
  slice        text COLLATE "C" NOT NULL,
  status       text NOT NULL,
  entity_type  text NOT NULL,
  filing_year  smallint NOT NULL,
  n            integer NOT NULL,
  CONSTRAINT entity_counts_pkey PRIMARY KEY (slice, status, entity_type, filing_year)
) WITH (fillfactor = 90);

-- Counts of every entity by status, type and filing day (date filters at day precision).
CREATE TABLE registry.entity_day_counts (
  status       text NOT NULL,
  entity_type  text NOT NULL,
  filing_date  date NOT NULL,
  n            integer NOT NULL,
  CONSTRAINT entity_day_counts_pkey PRIMARY KEY (filing_date, status, entity_type)
) WITH (fillfactor = 90);

-- Ranked postings (docs/search.md): for each frequent name word and each one- and
-- two-character name prefix, its entities in the order a query of exactly that word or prefix ranks
-- them after its exact tiers, so a broad query's page is an index range read.
--   slice   'w:WORD' or 'p:X' (as in entity_counts)
--   prefix  the name (without legal form) begins with the slice's text
--   sim     similarity(name_core, the slice's text), the same float the query would compute
--   filed   the filing date, '-infinity' for none (descending order puts no date last, and every
--           column of the key compares with `=` when a daily change removes a row)
--   status, entity_type, city: the filters a page tests on the rank index's entries alone
CREATE TABLE registry.entity_postings (
  slice            text COLLATE "C" NOT NULL,
  prefix           boolean NOT NULL,
  sim              real NOT NULL,
  filed            date NOT NULL,
  document_number  text COLLATE "C" NOT NULL,
  id               integer NOT NULL,
  status           text NOT NULL,
  entity_type      text NOT NULL,
  -- upper(principal_city), as the city filter compares it
  city             text COLLATE "C"
);
CREATE INDEX entity_postings_rank_idx ON registry.entity_postings
  (slice, prefix DESC, sim DESC, filed DESC, document_number)
  INCLUDE (id, status, entity_type, city);

CREATE TABLE registry.events (
  document_number  text COLLATE "C" NOT NULL,
  sequence         integer NOT NULL,
  code             text NOT NULL,
  description      text,
  effective_date   date,
  filed_date       date,
  filing_type      text NOT NULL,
  notes            text,
  merger_number    text,
  entity_name      text,
  source_date      date NOT NULL,
  CONSTRAINT events_pkey PRIMARY KEY (document_number, sequence)
);
CREATE INDEX events_filed_date_idx ON registry.events (filed_date DESC, document_number);

-- The last inactivating event of each entity that has one: its refined status (docs/contract.md,
-- "Search semantics").
CREATE TABLE registry.inactivations (
  document_number  text COLLATE "C" NOT NULL,
  letter           text NOT NULL,
  label            text NOT NULL,
  code             text NOT NULL,
  filed_date       date,
  CONSTRAINT inactivations_pkey PRIMARY KEY (document_number)
);
CREATE INDEX inactivations_letter_idx ON registry.inactivations (letter);

-- Florida ZIP to county (data/fl-zip-county.csv), written from the file at every start.
CREATE TABLE zip_counties (
  zip5        text COLLATE "C" PRIMARY KEY,
  county      text NOT NULL,
  county_fips text NOT NULL,
  city        text NOT NULL,
  zip_type    text NOT NULL
);
CREATE INDEX zip_counties_county_idx ON zip_counties (county);
