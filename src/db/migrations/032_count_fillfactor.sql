-- The same room (see 031) in the tables whose counts a daily file moves in place: each word of the
-- changed rows moves its dictionary's `n`, each count slice its `n`. Without room on its page such a
-- row moves to another page and every index takes a new entry: for a dictionary word that is its
-- trigram and deletion-key entries, dozens of GIN keys. With room, the update is HOT.
ALTER TABLE registry.entity_words SET (fillfactor = 90);
ALTER TABLE registry.officer_words SET (fillfactor = 90);
ALTER TABLE registry.agent_words SET (fillfactor = 90);
ALTER TABLE registry.address_words SET (fillfactor = 90);
ALTER TABLE registry.entity_counts SET (fillfactor = 90);
ALTER TABLE registry.entity_day_counts SET (fillfactor = 90);
ALTER TABLE registry.agent_spellings SET (fillfactor = 90);
