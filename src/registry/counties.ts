// Florida's ZIP codes and counties (data/fl-zip-county.csv): the lead feed's county facts.
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import type pg from 'pg';
import { zipCountyCsv } from '../config/paths.js';
import { normalizeText } from '../text/normalize.js';

interface ZipCounty {
  zip: string;
  county: string;
  county_fips: string;
  city: string;
  zip_type: string;
}

const ZIP_COUNTIES: readonly ZipCounty[] = parse(readFileSync(zipCountyCsv), {
  columns: true,
  skip_empty_lines: true,
  trim: true,
});

/** The 67 county names as the table spells them (`Miami-Dade`, `St. Johns`). */
const COUNTIES: readonly string[] = [...new Set(ZIP_COUNTIES.map((z) => z.county))].sort();

const countyKey = (s: string): string =>
  normalizeText(s)
    .replace(/\bSAINT\b/g, 'ST')
    .replace(/\s+COUNTY$/, '');

const BY_KEY = new Map(COUNTIES.map((c) => [countyKey(c), c]));

/** A county as a user may write it (any case, a trailing "County", `Saint`/`St.`), or undefined. */
export function canonicalCounty(input: string): string | undefined {
  return BY_KEY.get(countyKey(input));
}

export async function syncZipCounties(pool: pg.Pool): Promise<void> {
  const col = (k: keyof ZipCounty): string[] => ZIP_COUNTIES.map((z) => z[k]);
  await pool.query(
    `INSERT INTO zip_counties (zip5, county, county_fips, city, zip_type)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[])
     ON CONFLICT (zip5) DO UPDATE SET county = excluded.county, county_fips = excluded.county_fips,
       city = excluded.city, zip_type = excluded.zip_type`,
    [col('zip'), col('county'), col('county_fips'), col('city'), col('zip_type')],
  );
}
