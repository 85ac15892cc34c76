-- One or two characters within a principal city: an index on (city, name without legal form) finds
-- exactly the matches, where PostgreSQL ANDed a bitmap of the city with one of every name beginning
-- with the prefix (L in INDIALANTIC, 409 matches: 133 of 141 ms building a bitmap of 517,183 names;
-- M in SAINT AUGUSTINE ranked whole 249 ms, now 17). 524 MB, built in 24 s at 12.6 million entities.
CREATE INDEX entities_city_core_idx ON registry.entities (upper(principal_city), name_core);
