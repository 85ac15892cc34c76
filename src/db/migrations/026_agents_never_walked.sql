-- Agents are ranked whole, never walked by trigram count (docs/search.md, "Relevance pages"): the walk's index on
-- registry.agents has no reader left. A full load copies the live table's indexes, so it builds it no more either.
DROP INDEX IF EXISTS registry.agents_name_trgm_idx;
