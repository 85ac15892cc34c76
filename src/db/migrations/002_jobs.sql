-- Scheduled jobs (src/jobs/): every run of one, by the scheduler, by hand, at startup, or as the retry
-- of a failed refresh before its next daily time (docs/contract.md, "Operations").
CREATE TABLE job_runs (
  id           bigserial PRIMARY KEY,
  job          text NOT NULL,
  trigger      text NOT NULL CHECK (trigger IN ('schedule', 'manual', 'startup', 'retry')),
  as_of        timestamptz NOT NULL,
  started_at   timestamptz NOT NULL,
  finished_at  timestamptz,
  status       text NOT NULL CHECK (status IN ('running', 'succeeded', 'failed')),
  counts       jsonb NOT NULL DEFAULT '{}',
  error        text
);
CREATE INDEX job_runs_job_idx ON job_runs (job, started_at DESC);
