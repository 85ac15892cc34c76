-- At most so many change streams of a workspace at once (docs/contract.md, "Change feed"): each open stream holds a
-- lease it renews while it runs, so that the stream of a process that died stops counting within a minute.
CREATE TABLE change_streams (
  id            text PRIMARY KEY,
  workspace_id  text NOT NULL REFERENCES workspaces (id),
  started_at    timestamptz NOT NULL,
  expires_at    timestamptz NOT NULL
);
CREATE INDEX change_streams_workspace_idx ON change_streams (workspace_id, expires_at);
