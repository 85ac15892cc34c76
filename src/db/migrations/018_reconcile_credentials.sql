-- Issue 63: the reconciliation service for OpenRefine (docs/reconciliation.md). OpenRefine sends no header, so the
-- service's URL carries the credential: a token good for /v1/reconcile/{token} only, on the workspace's live credits.
-- Stored like API keys, as an HMAC-SHA256 under the server's pepper; the raw token is shown once. Revoked, it fails
-- from its very next request. The gate's functions are not changed: a credential's calls go through the gate as the
-- workspace's (src/api/reconcile/admission.ts).
CREATE TABLE reconcile_credentials (
  id            text PRIMARY KEY,
  workspace_id  text NOT NULL REFERENCES workspaces (id),
  hash          bytea NOT NULL UNIQUE,
  -- Its first and last characters, never enough to use it.
  hint          text NOT NULL,
  name          text,
  created_at    timestamptz NOT NULL,
  revoked_at    timestamptz,
  -- The start of the minute of its last accepted request (written at most once a minute).
  last_used_at  timestamptz
);
CREATE INDEX reconcile_credentials_workspace_idx ON reconcile_credentials (workspace_id, created_at);
