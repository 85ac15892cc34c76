-- The daily refresh from the registry's server: what each run did with each file, and what the
-- dataset's status endpoint reads without counting millions of rows per request.

-- A failed refresh is retried by the scheduler before its next daily time.
ALTER TABLE job_runs DROP CONSTRAINT job_runs_trigger_check;
ALTER TABLE job_runs ADD CONSTRAINT job_runs_trigger_check CHECK (trigger IN ('schedule', 'manual', 'startup', 'retry'));

-- One row per file a refresh run acted on (listed and not yet applied), with its outcome.
CREATE TABLE refresh_files (
  id               bigserial PRIMARY KEY,
  job_run_id       bigint REFERENCES job_runs (id),
  file_name        text NOT NULL,
  remote_path      text NOT NULL,
  kind             text NOT NULL CHECK (kind IN ('quarterly_corporate', 'quarterly_events', 'daily_corporate', 'daily_events')),
  -- A daily file's date (from its name); a snapshot's once it is read (its members' date).
  file_date        date,
  size_bytes       bigint NOT NULL,
  modified_at      timestamptz,
  outcome          text NOT NULL CHECK (outcome IN ('applied', 'already_imported', 'download_failed', 'refused', 'import_failed', 'held_back')),
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

ALTER TABLE dataset_state
  -- The last refresh run that succeeded (even with nothing new on the source), and the files applied
  -- since the one before (by it, and by failed runs in between).
  ADD COLUMN last_refresh_at    timestamptz,
  ADD COLUMN last_refresh_files jsonb NOT NULL DEFAULT '[]',
  -- Exact counts taken after each import (GET /v1/status must not count 12.6 million rows per request).
  ADD COLUMN entities           bigint,
  ADD COLUMN officers           bigint,
  ADD COLUMN events             bigint,
  ADD COLUMN agents             bigint,
  -- The newest filing (formation or event) dated no later than the newest registry file.
  ADD COLUMN newest_filing_date date;

UPDATE dataset_state SET
  entities = (SELECT count(*) FROM registry.entities),
  officers = (SELECT count(*) FROM registry.officers),
  events = (SELECT count(*) FROM registry.events),
  agents = (SELECT count(*) FROM registry.agents),
  newest_filing_date = greatest(
    (SELECT max(filing_date) FROM registry.entities WHERE filing_date <= dataset_state.newest_file_date),
    (SELECT max(filed_date) FROM registry.events WHERE filed_date <= dataset_state.newest_file_date));
