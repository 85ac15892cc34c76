-- Each workspace's events are numbered 1, 2, 3... in the order they were written (docs/webhooks.md, "Event
-- order"): a stable order, and a cursor a reader resumes from. A transaction that writes events takes its
-- workspace's counter row and holds it to its commit, so the numbers of one workspace commit in order: a reader
-- that has seen N never later finds a smaller number appear.
CREATE TABLE monitoring_sequences (
  workspace_id   text PRIMARY KEY REFERENCES workspaces (id) ON DELETE CASCADE,
  last_sequence  bigint NOT NULL
);

ALTER TABLE monitoring_events ADD COLUMN sequence bigint;
UPDATE monitoring_events m
SET sequence = s.n, payload = m.payload || jsonb_build_object('sequence', s.n)
FROM (SELECT id, row_number() OVER (PARTITION BY workspace_id ORDER BY created_at, id) AS n
      FROM monitoring_events) s
WHERE s.id = m.id;
ALTER TABLE monitoring_events ALTER COLUMN sequence SET NOT NULL;
INSERT INTO monitoring_sequences (workspace_id, last_sequence)
SELECT workspace_id, max(sequence) FROM monitoring_events GROUP BY workspace_id;
CREATE UNIQUE INDEX monitoring_events_sequence_idx ON monitoring_events (workspace_id, sequence);
