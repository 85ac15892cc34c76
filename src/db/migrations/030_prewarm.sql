-- pg_prewarm reads a freshly loaded dataset into the cache before it goes live (src/db/prewarm.ts).
-- It ships with PostgreSQL's contrib modules but is not a trusted extension: where the service's role
-- may not create it, or the server lacks it, loads skip the prewarm and say so.
DO $$
BEGIN
  CREATE EXTENSION IF NOT EXISTS pg_prewarm;
EXCEPTION WHEN insufficient_privilege OR undefined_file OR feature_not_supported THEN
  RAISE NOTICE 'pg_prewarm not installed (%): full loads will not prewarm', SQLERRM;
END $$;
