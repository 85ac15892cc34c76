// A file's changes written into the feed, in the file's own transaction (docs/contract.md, "Change feed"): numbered
// after the last number written, under the feed's counter row, which the transaction holds to its commit.
import type pg from 'pg';
import { NEXT_VERSION } from '../import/history.js';
import { STATUS_AT } from './fields.js';

/**
 * What the changes of a pair of records are: an entity's (created, removed, status_changed, updated), or a
 * filing's (added, corrected, or dropped by a full load).
 */
const KINDS = {
  entity: `SELECT 0 AS rank, CASE WHEN p.was THEN 'removed' ELSE 'created' END AS kind,
                  to_jsonb(array_remove(p.fields, NULL)) AS changes
           WHERE p.was <> p.is
           UNION ALL
           SELECT 1, 'status_changed', jsonb_build_array(p.fields[${STATUS_AT}])
           WHERE p.was AND p.is AND p.fields[${STATUS_AT}] IS NOT NULL
           UNION ALL
           SELECT 2, 'updated', to_jsonb(u.rest)
           FROM (SELECT array_remove(p.fields[:${STATUS_AT - 1}] || p.fields[${STATUS_AT + 1}:], NULL) AS rest) u
           WHERE p.was AND p.is AND cardinality(u.rest) > 0`,
  filing: `SELECT 0 AS rank, 'filing' AS kind,
             jsonb_build_array(jsonb_build_object('field', 'filing', 'before', p.before, 'after', p.after)) AS changes`,
} as const;

/** The file a change comes from. */
export interface ChangedFile {
  readonly name: string;
  readonly date: string;
}

/**
 * Writes the changes of `pairs`, a query of records before and after the file: `document_number`, `ord` (orders an
 * entity's pairs: a filing's sequence), `entity_type`, `zip5` (the principal ZIP, for the county), `before` and
 * `after` (jsonb, null for no record). Numbered by document number, then `ord`, then kind. Returns how many.
 */
export async function writeChanges(
  client: pg.PoolClient,
  pairs: string,
  of: keyof typeof KINDS,
  file: ChangedFile,
): Promise<number> {
  const { rows: state } = await client.query<{ last: string }>(
    'SELECT last_sequence AS last FROM registry.change_state FOR UPDATE',
  );
  const base = Number(state[0]!.last);
  const { rows: ids } = await client.query<{ id: number }>(
    "SELECT nextval(pg_get_serial_sequence('registry.change_files', 'id'))::int AS id",
  );
  const fileId = ids[0]!.id;
  const { rowCount } = await client.query(
    // Materialized: each pair's changes are built once, not again at each kind that reads them.
    `WITH p AS MATERIALIZED (${pairs})
     INSERT INTO registry.changes (sequence, kind, document_number, entity_type, county, file_id, changes)
     SELECT $1::bigint + row_number() OVER (ORDER BY p.document_number, p.ord, k.rank), k.kind, p.document_number,
            p.entity_type, z.county, $2, k.changes
     FROM p
     LEFT JOIN zip_counties z ON z.zip5 = p.zip5
     CROSS JOIN LATERAL (${KINDS[of]}) k`,
    [base, fileId],
  );
  const written = rowCount ?? 0;
  if (written === 0) return 0;
  await client.query(
    `INSERT INTO registry.change_files
       (id, file, file_date, dataset_version, imported_at, first_sequence, last_sequence)
     VALUES ($1, $2, $3, ${NEXT_VERSION}, now(), $4, $5)`,
    [fileId, file.name, file.date, base + 1, base + written],
  );
  await client.query('UPDATE registry.change_state SET last_sequence = $1', [base + written]);
  return written;
}
