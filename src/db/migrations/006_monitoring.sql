-- Monitoring (docs/webhooks.md): a workspace's watched entities and saved searches, its webhook
-- endpoints, the events every import writes in its own transaction (the outbox), and their deliveries
-- with the log of each attempt.

CREATE TABLE watched_entities (
  workspace_id     text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  document_number  text COLLATE "C" NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, document_number)
);
-- The importer looks up the touched document numbers here.
CREATE INDEX watched_entities_document_idx ON watched_entities (document_number);

-- Entity-search parameters, validated by the entity search's own schema before they are stored.
CREATE TABLE saved_searches (
  id            text PRIMARY KEY,
  workspace_id  text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  name          text NOT NULL,
  params        jsonb NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX saved_searches_workspace_idx ON saved_searches (workspace_id);

CREATE TABLE webhook_endpoints (
  id                    text PRIMARY KEY,
  workspace_id          text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  url                   text NOT NULL,
  secret                text NOT NULL,
  event_types           text[] NOT NULL,
  -- Set by hand, or after repeated failures (paused_reason says which).
  paused_at             timestamptz,
  paused_reason         text,
  consecutive_failures  integer NOT NULL DEFAULT 0,
  created_at            timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_endpoints_workspace_idx ON webhook_endpoints (workspace_id);

-- The outbox: one row per event and workspace, written by the import that caused it.
CREATE TABLE monitoring_events (
  id               text PRIMARY KEY,
  workspace_id     text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  type             text NOT NULL CHECK (type IN ('entity.created', 'entity.updated', 'saved_search.match', 'ping')),
  document_number  text COLLATE "C",
  saved_search_id  text,
  payload          jsonb NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX monitoring_events_workspace_idx ON monitoring_events (workspace_id, created_at DESC);

-- One delivery per event and endpoint; `next_attempt_at` is also the lease of a claimed delivery.
CREATE TABLE webhook_deliveries (
  id               bigserial PRIMARY KEY,
  event_id         text NOT NULL REFERENCES monitoring_events (id) ON DELETE CASCADE,
  endpoint_id      text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts         integer NOT NULL DEFAULT 0,
  next_attempt_at  timestamptz NOT NULL DEFAULT now(),
  created_at       timestamptz NOT NULL DEFAULT now(),
  finished_at      timestamptz,
  UNIQUE (event_id, endpoint_id)
);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';

-- The delivery log: every attempt, kept 30 days.
CREATE TABLE webhook_attempts (
  id               bigserial PRIMARY KEY,
  delivery_id      bigint NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  attempted_at     timestamptz NOT NULL,
  status_code      integer,
  latency_ms       integer NOT NULL,
  response_excerpt text,
  error            text
);
CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts (delivery_id, attempted_at);
CREATE INDEX webhook_attempts_time_idx ON webhook_attempts (attempted_at);
