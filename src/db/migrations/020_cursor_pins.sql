-- Cursors pinned to a dataset version (docs/contract.md, "Cursors"): a walk that began at version V reads the
-- entities as they were at V, whatever imports run meanwhile. Each entity row records the version that last wrote
-- it (`changed_in`; 0 for rows of a full load); a daily file keeps the rows it replaces in `entity_history`, each
-- with the version that replaced it. The rows of V are then the live rows with changed_in <= V and the kept
-- images with changed_in <= V < superseded_in.
ALTER TABLE registry.entities ADD COLUMN changed_in bigint NOT NULL DEFAULT 0;

-- Events are added, seldom replaced: a pinned walk leaves out those written after its version.
ALTER TABLE registry.events ADD COLUMN changed_in bigint NOT NULL DEFAULT 0;

-- The entity columns in the entities' order (the import copies the replaced rows as they are), then when the
-- row was replaced. A column added to registry.entities is added here too.
CREATE TABLE registry.entity_history (
  LIKE registry.entities,
  superseded_in bigint NOT NULL,
  superseded_at timestamptz NOT NULL
);
CREATE INDEX entity_history_superseded_idx ON registry.entity_history (superseded_in);

-- The oldest version a cursor can still read: a full load replaces every row, and history is kept a week.
ALTER TABLE dataset_state ADD COLUMN pinned_from bigint NOT NULL DEFAULT 0;
