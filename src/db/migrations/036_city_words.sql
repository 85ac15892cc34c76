-- A name's words within a principal city, as one key each ("TAMPA|PEREZ"): the index finds exactly
-- the rows of a word in a city. Before, either every row of the word was read to test its city (PEREZ
-- in TAMPA: 14,900 rows for 940 matches, 1.1 s with the pages on disk, 923 ms in the bench right after
-- a full load) or every row of the city to test its words (INVESTMENTS in BOKEELIA, 1.2 s on a slower
-- machine), or their two bitmaps were ANDed. Keys are upper-cased as the city filter compares them;
-- words hold no "|", so a key names one city and one word. 478 MB, built in 72 s at 12.6 million
-- entities; a full load builds it from this definition, like every index (snapshot.ts).
CREATE FUNCTION registry.city_words(city text, words text[]) RETURNS text[]
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT ARRAY(SELECT upper(coalesce(city, '')) || '|' || w FROM unnest(words) w) $$;
CREATE INDEX entities_city_words_idx ON registry.entities USING gin (registry.city_words(principal_city, name_words))
  WITH (fastupdate = off);
-- Statistics of the new expression, so that its matches are not estimated as a fixed share.
ANALYZE registry.entities;
