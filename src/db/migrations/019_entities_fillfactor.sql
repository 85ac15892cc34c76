-- Entity pages keep a tenth free. Most daily changes touch no indexed column (an annual report moves
-- the last transaction date and the reports), and with room on its page PostgreSQL writes such an
-- update as a heap-only tuple: none of the table's eighteen index entries is rewritten. A full load
-- copies the setting to the table it builds; until then it applies to pages written from now on.
ALTER TABLE registry.entities SET (fillfactor = 90);
