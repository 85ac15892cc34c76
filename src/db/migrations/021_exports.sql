-- Exports (docs/exports.md): a list operation's whole result set written as a file in the background by the same
-- workers as match jobs. The file is kept in PostgreSQL as numbered parts, so any instance serves its download and a
-- worker that dies leaves the next one the pages its parts do not yet hold. A chunk's part, its credits, the
-- progress and the cursor of the next page are written in one transaction.
CREATE TABLE exports (
  id              text PRIMARY KEY,
  workspace_id    text NOT NULL REFERENCES workspaces (id),
  key_id          text,
  user_id         text,
  created_at      timestamptz NOT NULL,
  status          text NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'failed', 'cancelled')),
  -- The list operation (its operationId) and its parameters as validated, without the page's.
  operation       text NOT NULL,
  params          jsonb NOT NULL,
  format          text NOT NULL CHECK (format IN ('csv', 'jsonl', 'parquet')),
  -- The list's exact total, from its first page; rows written and the credits taken for them so far.
  total_rows      bigint,
  done_rows       bigint NOT NULL DEFAULT 0,
  credits         integer NOT NULL DEFAULT 0,
  -- The cursor of the next page (null before the first); parts written so far and their bytes.
  next_cursor     text,
  parts           integer NOT NULL DEFAULT 0,
  bytes           bigint NOT NULL DEFAULT 0,
  error_code      text,
  error           text,
  claimed_by      integer,
  started_at      timestamptz,
  finished_at     timestamptz,
  idempotency_key text,
  UNIQUE (workspace_id, idempotency_key)
);
CREATE INDEX exports_open_idx ON exports (created_at) WHERE status IN ('queued', 'running');
CREATE INDEX exports_workspace_idx ON exports (workspace_id, created_at DESC);

CREATE TABLE export_parts (
  export_id text NOT NULL REFERENCES exports (id) ON DELETE CASCADE,
  part      integer NOT NULL,
  data      bytea NOT NULL,
  PRIMARY KEY (export_id, part)
);

-- An export's end is an event its workspace's endpoints may subscribe to.
ALTER TABLE monitoring_events DROP CONSTRAINT monitoring_events_type_check;
ALTER TABLE monitoring_events ADD CONSTRAINT monitoring_events_type_check
  CHECK (type IN ('entity.created', 'entity.updated', 'saved_search.match', 'match_job.completed', 'export.completed',
                  'ping'));
