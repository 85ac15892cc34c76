-- The word indexes (GIN) write new entries straight into the index instead of a pending list. A
-- daily file's rows went to the pending list (fastupdate, on by default), which every search then
-- read through in full: after ten daily files, 28,480 pending entries in the entity name index and
-- 27,446 in the address index, and the name index lookup of MARIA and its 110 expansions took
-- 182 ms instead of 16 (12.6 million entities). Autovacuum, which merges the list, seldom runs
-- on tables this large. Indexes built later take their definition (and this setting) from these.
DO $$
DECLARE
  i regclass;
BEGIN
  FOR i IN
    SELECT c.oid::regclass FROM pg_class c JOIN pg_am a ON a.oid = c.relam
    WHERE a.amname = 'gin' AND c.relnamespace = 'registry'::regnamespace
  LOOP
    EXECUTE format('ALTER INDEX %s SET (fastupdate = off)', i);
    PERFORM gin_clean_pending_list(i);
  END LOOP;
END $$;
