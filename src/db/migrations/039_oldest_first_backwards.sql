-- Oldest-first listings read the newest-first date indexes backwards (src/search/entities.ts,
-- oldestFirstWalk) instead of an ascending index of their own: at 12.6 million entities the four
-- ascending indexes took 185.6 and 202.9 s of a full load's index work and 2.4 GB (docs/search.md,
-- twenty-fourth session). Backwards, an index on (filing_date DESC NULLS LAST, document_number)
-- gives the undated rows first and each day's rows by descending document number, so the walk reads
-- the dated rows and sorts each day's few by document number (an incremental sort), then the
-- undated ones. The sort reads a whole day before it can give its first row (1,743 rows for all
-- entities filed since 2020): the plain date index carries the id, as the status and type ones do
-- (migration 034), so that it reads index entries only, not a heap page per row (29 ms against 4
-- warm; 200 ms and more cold).
DROP INDEX registry.entities_filing_date_asc_idx;
DROP INDEX registry.entities_status_date_asc_idx;
DROP INDEX registry.entities_type_date_asc_idx;
DROP INDEX registry.entities_city_date_asc_idx;
DROP INDEX registry.entities_filing_date_idx;
CREATE INDEX entities_filing_date_idx ON registry.entities (filing_date DESC NULLS LAST, document_number) INCLUDE (id);
