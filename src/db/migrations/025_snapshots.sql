-- Bulk snapshots (docs/contract.md, "Bulk snapshots"): the whole dataset as of an import, written by the background
-- workers as files under DATA_DIR/snapshots/<id>/ (src/snapshots/). One row per dataset version: begun when a worker
-- starts reading that version (taken up again, under the same id, when its worker died), completed once every file
-- is written and renamed into place. The newest few completed are kept.
CREATE TABLE snapshots (
  id                text PRIMARY KEY,
  dataset_version   bigint NOT NULL UNIQUE,
  -- The change feed's last number the files include: a mirror follows on with after_sequence = last_sequence.
  last_sequence     bigint NOT NULL,
  -- The last import the files include, and the newest registry file date the dataset holds.
  imported_at       timestamptz,
  newest_file_date  date,
  status            text NOT NULL CHECK (status IN ('running', 'completed')),
  -- Once completed: [{name, table, format, rows, bytes, sha256}].
  files             jsonb,
  started_at        timestamptz NOT NULL,
  completed_at      timestamptz
);
CREATE INDEX snapshots_completed_idx ON snapshots (dataset_version DESC) WHERE status = 'completed';
