-- What has been imported and what the dataset is: the registry files applied, the files each daily
-- refresh acted on, the dataset's state (its version for cache keys, its counts for the status
-- route), and pg_prewarm for loading a new dataset into the cache before it goes live.

-- One row per file applied, so a file is applied once (by name and checksum).
CREATE TABLE imports (
  id              bigserial PRIMARY KEY,
  file_name       text NOT NULL,
  kind            text NOT NULL
                  CHECK (kind IN ('quarterly_corporate', 'quarterly_events', 'daily_corporate', 'daily_events')),
  file_date       date NOT NULL,
  checksum        text NOT NULL,
  size_bytes      bigint NOT NULL,
  started_at      timestamptz NOT NULL,
  finished_at     timestamptz NOT NULL,
  records_read    integer NOT NULL,
  records_loaded  integer NOT NULL,
  records_updated integer NOT NULL,
  records_rejected integer NOT NULL,
  rejects         jsonb NOT NULL DEFAULT '[]',
  UNIQUE (file_name, checksum)
);

-- One row per file a refresh run acted on (listed and not yet applied), with its outcome.
CREATE TABLE refresh_files (
  id               bigserial PRIMARY KEY,
  job_run_id       bigint REFERENCES job_runs (id),
  file_name        text NOT NULL,
  remote_path      text NOT NULL,
  kind             text NOT NULL
                   CHECK (kind IN ('quarterly_corporate', 'quarterly_events', 'daily_corporate', 'daily_events')),
  -- A daily file's date (from its name); a snapshot's once it is read (its members' date).
  file_date        date,
  size_bytes       bigint NOT NULL,
  modified_at      timestamptz,
  outcome          text NOT NULL CHECK (outcome IN ('applied', 'already_imported', 'download_failed', 'refused',
                                                    'import_failed', 'held_back')),
  -- Bytes already on disk from an earlier, interrupted download when this one started.
  resumed_from     bigint NOT NULL DEFAULT 0,
  downloaded_bytes bigint NOT NULL DEFAULT 0,
  attempts         integer NOT NULL DEFAULT 0,
  records_read     integer,
  records_rejected integer,
  error            text,
  recorded_at      timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX refresh_files_run_idx ON refresh_files (job_run_id);

-- The dataset as a whole, one row: a version that changes with every applied file (cache keys use it).
CREATE TABLE dataset_state (
  id                 boolean PRIMARY KEY DEFAULT true CHECK (id),
  version            bigint NOT NULL DEFAULT 0,
  last_import_at     timestamptz,
  snapshot_date      date,
  newest_file_date   date,
  -- The last refresh run that succeeded (even with nothing new on the source), and the files applied
  -- since the one before (by it, and by failed runs in between).
  last_refresh_at    timestamptz,
  last_refresh_files jsonb NOT NULL DEFAULT '[]',
  -- Exact counts taken after each import (GET /v1/status must not count 12.6 million rows per request).
  entities           bigint,
  officers           bigint,
  events             bigint,
  agents             bigint,
  -- The newest filing (formation or event) dated no later than the newest registry file.
  newest_filing_date date
);
-- A new database's dataset is empty, and counted: its counts are 0.
INSERT INTO dataset_state (entities, officers, events, agents) VALUES (0, 0, 0, 0);

-- pg_prewarm reads a freshly loaded dataset into the cache before it goes live (src/db/prewarm.ts).
-- It ships with PostgreSQL's contrib modules but is not a trusted extension: where the service's role
-- may not create it, or the server lacks it, loads skip the prewarm and say so.
DO $$
BEGIN
  CREATE EXTENSION IF NOT EXISTS pg_prewarm;
EXCEPTION WHEN insufficient_privilege OR undefined_file OR feature_not_supported THEN
  RAISE NOTICE 'pg_prewarm not installed (%): full loads will not prewarm', SQLERRM;
END $$;
