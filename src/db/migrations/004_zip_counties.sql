-- Florida ZIP to county (data/fl-zip-county.csv), written from the file at every start.
CREATE TABLE zip_counties (
  zip5        text COLLATE "C" PRIMARY KEY,
  county      text NOT NULL,
  county_fips text NOT NULL,
  city        text NOT NULL,
  zip_type    text NOT NULL
);
CREATE INDEX zip_counties_county_idx ON zip_counties (county);
