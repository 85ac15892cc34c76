// An entity hit as the search answers it (shapes.ts, EntityHit), read for the refs of a page.
import type pg from 'pg';
import type { EntityHit } from '../shapes.js';
import { statusLabelSql } from '../status.js';

/**
 * The hit's columns, from a row `r` of entities. Blank principal states are Florida's; an entity
 * without a file date shows its last transaction date (or the date its record arrived).
 */
export const entityHitColumns = (r: string): string => `
  ${r}.document_number, ${r}.name AS entity_name,
  ${statusLabelSql(`${r}.status`)} AS status,
  ${r}.entity_type, coalesce(${r}.filing_date, ${r}.last_transaction_date, ${r}.source_date)::text AS filing_date,
  nullif(concat_ws(', ', ${r}.principal_addr1, ${r}.principal_addr2), '') AS principal_address_street,
  coalesce(${r}.principal_city, '') AS principal_city,
  coalesce(${r}.principal_state, 'FL') AS principal_state,
  coalesce(${r}.principal_zip5, '') AS principal_zip,
  ${r}.agent_name AS registered_agent_name`;

/** The hits of `ids`, in their order. */
export async function entityHits(pool: pg.Pool, ids: number[]): Promise<EntityHit[]> {
  if (ids.length === 0) return [];
  const { rows } = await pool.query<EntityHit>(
    `SELECT ${entityHitColumns('e')} FROM unnest($1::int[]) WITH ORDINALITY AS u(id, pos)
     JOIN registry.entities e ON e.id = u.id ORDER BY u.pos`,
    [ids],
  );
  return rows;
}
