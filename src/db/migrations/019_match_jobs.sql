-- Match jobs (docs/matching.md, "Jobs"): a customer's list of up to 1,000,000 rows matched in the background. The
-- rows are stored as uploaded; workers (API instances or `registry worker`) claim a job whose worker is gone, and
-- match it in chunks of rows taken in order. A chunk's results, its credits and the job's progress are written in
-- one transaction, so a worker killed mid-chunk leaves the chunk to the next one, uncharged.
CREATE TABLE match_jobs (
  id             text PRIMARY KEY,
  workspace_id   text NOT NULL REFERENCES workspaces (id),
  -- Who created it: a live key, or a member through the web app.
  key_id         text,
  user_id        text,
  created_at     timestamptz NOT NULL,
  status         text NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'failed', 'cancelled')),
  algorithm      text NOT NULL,
  -- The input's file name and format, and which of its columns hold which field (name, city, ...).
  file_name      text,
  format         text NOT NULL CHECK (format IN ('csv', 'jsonl')),
  columns        jsonb NOT NULL,
  total_rows     integer NOT NULL,
  -- Rows 1..done_rows have their results (chunks go in order), each charged once.
  done_rows      integer NOT NULL DEFAULT 0,
  matched_rows   integer NOT NULL DEFAULT 0,
  -- Why a job failed: payment_required (the balance ran out; its done rows stay), or an internal error.
  error_code     text,
  error          text,
  -- The instance working on it (its lock: src/db/instance.ts); another claims it once that lock is gone.
  claimed_by     integer,
  started_at     timestamptz,
  finished_at    timestamptz,
  idempotency_key text,
  UNIQUE (workspace_id, idempotency_key)
);
CREATE INDEX match_jobs_open_idx ON match_jobs (created_at) WHERE status IN ('queued', 'running');
CREATE INDEX match_jobs_workspace_idx ON match_jobs (workspace_id, created_at DESC);

CREATE TABLE match_job_rows (
  job_id  text NOT NULL REFERENCES match_jobs (id) ON DELETE CASCADE,
  row_no  integer NOT NULL,
  -- The row's fields as the column mapping read them: name, city, zip, address, officer, reference...
  input   jsonb NOT NULL,
  -- Its best candidate, score, verdict and grades; null until its chunk is done.
  result  jsonb,
  PRIMARY KEY (job_id, row_no)
);

-- A job's completion is an event its workspace's endpoints may subscribe to.
ALTER TABLE monitoring_events DROP CONSTRAINT monitoring_events_type_check;
ALTER TABLE monitoring_events ADD CONSTRAINT monitoring_events_type_check
  CHECK (type IN ('entity.created', 'entity.updated', 'saved_search.match', 'match_job.completed', 'ping'));
