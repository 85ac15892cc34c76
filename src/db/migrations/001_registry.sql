-- The registry dataset. Every table here is rebuilt by a full (quarterly) load in a staging schema
-- and swapped in atomically; its indexes and constraints are copied from these definitions.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE EXTENSION IF NOT EXISTS fuzzystrmatch;
CREATE SCHEMA IF NOT EXISTS registry;

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
  CONSTRAINT entities_pkey PRIMARY KEY (document_number)
);
CREATE UNIQUE INDEX entities_id_idx ON registry.entities (id);
CREATE INDEX entities_name_core_idx ON registry.entities (name_core);
CREATE INDEX entities_name_words_idx ON registry.entities USING gin (name_words);
CREATE INDEX entities_filing_date_idx ON registry.entities (filing_date DESC, document_number);
CREATE INDEX entities_city_idx ON registry.entities (upper(principal_city));
CREATE INDEX entities_zip5_idx ON registry.entities (principal_zip5, principal_zip4);
CREATE INDEX entities_type_idx ON registry.entities (entity_type);
CREATE INDEX entities_status_idx ON registry.entities (status);
CREATE INDEX entities_agent_idx ON registry.entities (agent_key, agent_zip5);
CREATE INDEX entities_agent_words_idx ON registry.entities USING gin (agent_words);
CREATE INDEX entities_address_words_idx ON registry.entities USING gin (address_words);

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
  CONSTRAINT officers_pkey PRIMARY KEY (document_number, slot)
);
CREATE INDEX officers_entity_idx ON registry.officers (entity_id);
CREATE INDEX officers_name_words_idx ON registry.officers USING gin (name_words);
CREATE INDEX officers_name_sorted_idx ON registry.officers (name_sorted);
CREATE INDEX officers_name_norm_idx ON registry.officers (name_norm);

-- Registered agents, one row per normalized name and ZIP5, derived from the entities.
CREATE TABLE registry.agents (
  agent_key     text COLLATE "C" NOT NULL,
  zip5          text COLLATE "C" NOT NULL,
  name          text NOT NULL,
  city          text,
  state         text,
  entity_count  integer NOT NULL,
  name_sorted   text COLLATE "C" NOT NULL,
  name_words    text[] NOT NULL,
  CONSTRAINT agents_pkey PRIMARY KEY (agent_key, zip5)
);
CREATE INDEX agents_name_words_idx ON registry.agents USING gin (name_words);
CREATE INDEX agents_name_sorted_idx ON registry.agents (name_sorted);

-- Distinct words of each searchable kind, for fuzzy expansion of query words.
CREATE TABLE registry.entity_words (word text COLLATE "C" NOT NULL, n integer NOT NULL, CONSTRAINT entity_words_pkey PRIMARY KEY (word));
CREATE INDEX entity_words_trgm_idx ON registry.entity_words USING gin (word gin_trgm_ops);
CREATE TABLE registry.officer_words (word text COLLATE "C" NOT NULL, n integer NOT NULL, CONSTRAINT officer_words_pkey PRIMARY KEY (word));
CREATE INDEX officer_words_trgm_idx ON registry.officer_words USING gin (word gin_trgm_ops);
CREATE TABLE registry.agent_words (word text COLLATE "C" NOT NULL, n integer NOT NULL, CONSTRAINT agent_words_pkey PRIMARY KEY (word));
CREATE INDEX agent_words_trgm_idx ON registry.agent_words USING gin (word gin_trgm_ops);
CREATE TABLE registry.address_words (word text COLLATE "C" NOT NULL, n integer NOT NULL, CONSTRAINT address_words_pkey PRIMARY KEY (word));
CREATE INDEX address_words_trgm_idx ON registry.address_words USING gin (word gin_trgm_ops);

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

-- The last inactivating event of each entity that has one (the refined status of decisions.md).
CREATE TABLE registry.inactivations (
  document_number  text COLLATE "C" NOT NULL,
  letter           text NOT NULL,
  label            text NOT NULL,
  code             text NOT NULL,
  filed_date       date,
  CONSTRAINT inactivations_pkey PRIMARY KEY (document_number)
);
CREATE INDEX inactivations_letter_idx ON registry.inactivations (letter);
