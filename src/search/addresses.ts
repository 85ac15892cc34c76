// Address search: one row per (principal address, entity). A ZIP5 or ZIP+4 is an equality match
// on the postal code; anything else matches the normalized address (street and city) by words.
import type pg from 'pg';
import { matchesAllWords } from './expand.js';
import { addressKey } from './normalize.js';
import { pageQuery, toPage, type Page, type PageRequest } from './paging.js';
import { Sql } from './sql.js';

export interface AddressHit {
  address: string;
  city: string;
  state: string;
  zip: string;
  document_number: string;
  entity_name: string;
}

const ZIP = /^(\d{5})(?:-(\d{4}))?$/;

export async function searchAddresses(pool: pg.Pool, q: PageRequest & { query: string }): Promise<Page<AddressHit>> {
  const sql = new Sql();
  const zip = ZIP.exec(q.query.trim());
  let where: string;
  let order: string;
  if (zip) {
    where = `e.principal_zip5 = ${sql.p(zip[1])}${zip[2] ? ` AND e.principal_zip4 = ${sql.p(zip[2])}` : ''}`;
    order = 'address_norm ASC NULLS LAST, document_number ASC';
  } else {
    const key = addressKey(q.query);
    where = matchesAllWords(sql, 'address_words', 'e.address_words', key.words);
    const n = sql.p(key.norm);
    order = `CASE WHEN address_norm = ${n} THEN 0 WHEN address_norm LIKE ${n} || '%' THEN 1 ELSE 2 END,
             similarity(address_norm, ${n}) DESC, address_norm ASC, document_number ASC`;
  }
  const matches = `SELECT e.document_number, e.name, e.address_norm, e.principal_addr1, e.principal_addr2, e.principal_city,
                          e.principal_state, e.principal_zip5 FROM registry.entities e WHERE ${where}`;
  const hit = `coalesce(nullif(concat_ws(', ', page.principal_addr1, page.principal_addr2), ''), '') AS address,
               coalesce(page.principal_city, '') AS city, coalesce(page.principal_state, 'FL') AS state,
               coalesce(page.principal_zip5, '') AS zip, page.document_number, page.name AS entity_name`;
  const { rows } = await pool.query(pageQuery(matches, order, hit, sql.p(q.limit), sql.p(q.offset)), sql.params);
  return toPage<AddressHit>(rows[0]);
}
