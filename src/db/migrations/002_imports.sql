-- What has been imported: one row per file, so a file is applied once (by name and checksum).
CREATE TABLE imports (
  id              bigserial PRIMARY KEY,
  file_name       text NOT NULL,
  kind            text NOT NULL CHECK (kind IN ('quarterly_corporate', 'quarterly_events', 'daily_corporate', 'daily_events')),
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

-- The dataset as a whole: a version that changes with every applied file (cache keys use it).
CREATE TABLE dataset_state (
  id               boolean PRIMARY KEY DEFAULT true CHECK (id),
  version          bigint NOT NULL DEFAULT 0,
  last_import_at   timestamptz,
  snapshot_date    date,
  newest_file_date date
);
INSERT INTO dataset_state DEFAULT VALUES;
