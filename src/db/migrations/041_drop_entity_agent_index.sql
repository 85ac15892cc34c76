-- No statement reads the entities by their agent's key since daily files move the agent groups by
-- their spellings (migration 017) instead of regrouping the entities of each touched agent, which
-- is what this index served. It had 0 scans after two full benchmark runs (import, daily files and
-- the mix) and cost a full load its build, 60 to 65 s of step work at 12.6 million entities on a slow
-- machine, plus 390 MB and its upkeep in every daily file (docs/search.md, twenty-eighth session).
-- A full load builds the indexes the live table has, so it is gone from later loads too.
DROP INDEX IF EXISTS registry.entities_agent_idx;
