-- Search at full scale (docs/search.md). Each searchable text carries its number of distinct
-- trigrams, which bounds its trigram similarity to a query; an index on it lets a broad query
-- walk the candidates most similar first instead of ranking every match. Name sorts walk an index
-- on the normalized name. Precomputed counts (`entity_counts`) answer exact totals of broad queries.
-- Computed by PostgreSQL as rows arrive (the importer's own CPU is the scarcer one).
ALTER TABLE registry.entities ADD COLUMN name_trgm smallint NOT NULL
  GENERATED ALWAYS AS (coalesce(array_length(show_trgm(name_core), 1), 0)) STORED;
ALTER TABLE registry.entities ADD COLUMN address_trgm smallint NOT NULL
  GENERATED ALWAYS AS (coalesce(array_length(show_trgm(address_norm), 1), 0)) STORED;
ALTER TABLE registry.officers ADD COLUMN name_trgm smallint NOT NULL
  GENERATED ALWAYS AS (coalesce(array_length(show_trgm(name_norm), 1), 0)) STORED;
ALTER TABLE registry.agents ADD COLUMN name_trgm smallint NOT NULL
  GENERATED ALWAYS AS (coalesce(array_length(show_trgm(agent_key), 1), 0)) STORED;

CREATE INDEX entities_name_trgm_idx ON registry.entities (name_trgm);
CREATE INDEX entities_address_trgm_idx ON registry.entities (address_trgm);
CREATE INDEX entities_name_norm_idx ON registry.entities (name_norm, document_number);
CREATE INDEX officers_name_trgm_idx ON registry.officers (name_trgm);
CREATE INDEX agents_name_trgm_idx ON registry.agents (name_trgm);

-- Counts of entities by slice, status, type and filing year: slice '' is every entity, 'w:WORD'
-- those whose name holds a frequent WORD, 'p:X' those whose name begins with the 1 or 2 characters X,
-- 'c:CITY' those in a principal city. filing_year -1 is no date.
CREATE TABLE registry.entity_counts (
  slice        text COLLATE "C" NOT NULL,
  status       text NOT NULL,
  entity_type  text NOT NULL,
  filing_year  smallint NOT NULL,
  n            integer NOT NULL,
  CONSTRAINT entity_counts_pkey PRIMARY KEY (slice, status, entity_type, filing_year)
);

-- Counts of every entity by status, type and filing day (date filters at day precision).
CREATE TABLE registry.entity_day_counts (
  status       text NOT NULL,
  entity_type  text NOT NULL,
  filing_date  date NOT NULL,
  n            integer NOT NULL,
  CONSTRAINT entity_day_counts_pkey PRIMARY KEY (filing_date, status, entity_type)
);

-- A frequent word (set at each full load: in 20,000 or more rows) matches itself only: it was not
-- mistyped, and its exact count is its `n`.
ALTER TABLE registry.entity_words ADD COLUMN frequent boolean NOT NULL DEFAULT false;
ALTER TABLE registry.officer_words ADD COLUMN frequent boolean NOT NULL DEFAULT false;
ALTER TABLE registry.agent_words ADD COLUMN frequent boolean NOT NULL DEFAULT false;
ALTER TABLE registry.address_words ADD COLUMN frequent boolean NOT NULL DEFAULT false;

-- Agents get an id (officer rows are entity_id * 8 + slot), so every kind of row has an integer reference.
ALTER TABLE registry.agents ADD COLUMN id integer NOT NULL DEFAULT 0;
UPDATE registry.agents a SET id = r.n FROM (SELECT agent_key, zip5, row_number() OVER (ORDER BY agent_key, zip5) AS n FROM registry.agents) r
WHERE r.agent_key = a.agent_key AND r.zip5 = a.zip5;
CREATE UNIQUE INDEX agents_id_idx ON registry.agents (id);
-- The agent dictionary counts agent groups (what agent search counts), no longer entities.
TRUNCATE registry.agent_words;
INSERT INTO registry.agent_words (word, n) SELECT w, count(*) FROM registry.agents, unnest(name_words) AS w GROUP BY w;

-- Officer rows are referred to as entity_id * 8 + slot.
CREATE INDEX officers_ref_idx ON registry.officers ((entity_id * 8 + slot));
-- Addresses by ZIP are listed by address: the ZIP's rows come off the index in order.
DROP INDEX registry.entities_zip5_idx;
CREATE INDEX entities_zip5_idx ON registry.entities (principal_zip5, address_norm, document_number);

-- Indexes no query needs: a two-valued status; exact tiers are checked on candidate rows only;
-- officer rows are fetched by their reference.
DROP INDEX registry.entities_status_idx;
DROP INDEX registry.agents_name_sorted_idx;
DROP INDEX registry.officers_name_sorted_idx;
DROP INDEX registry.officers_entity_idx;
