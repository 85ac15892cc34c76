-- Room on every entity page for a changed row's new version. Most daily changes (annual reports,
-- officer lists) leave every indexed column as it was; with room on its page, such a row is updated
-- in place (a HOT update) and none of the entity table's two dozen indexes takes a new entry. Index
-- entries were most of a daily file's time at 12.6 million entities: each one a random read of a
-- leaf page that is seldom cached. Pages written from now on keep 10% free; a full load writes them
-- all (the staged table takes the live one's storage options, src/registry/import/snapshot.ts).
ALTER TABLE registry.entities SET (fillfactor = 90);
