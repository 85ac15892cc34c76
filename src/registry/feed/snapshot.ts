// The changes of a quarterly snapshot, a full load (docs/contract.md, "Change feed"): what its staged tables change
// against the live ones, found before the swap in one pass over both (readers keep the live tables meanwhile), and
// written once the swap is done, in its transaction. Only the pairs of records that differ are kept, in a temp
// table: the database does the comparison, however large the dataset, and holds what differs. A first load
// (nothing live yet) writes nothing: the feed begins after it.
import type pg from 'pg';
import { ENTITY_FIELDS, FILING_FIELDS, fieldChanges, filingJson, officerLists } from './fields.js';
import { writeChanges, type ChangedFile } from './write.js';

/** A snapshot's changes, compared before its swap; `write` writes them after it. */
export interface StagedChanges {
  /** How many entities or filings differ. */
  readonly differing: number;
  write(client: pg.PoolClient, file: ChangedFile): Promise<number>;
}

const PAIRS = 'feed_pairs';

const tuple = (t: string, fields: readonly string[]): string => `(${fields.map((f) => `${t}.${f}`).join(', ')})`;

const isEmpty = async (client: pg.PoolClient, table: string): Promise<boolean> =>
  (await client.query(`SELECT 1 FROM ${table} LIMIT 1`)).rowCount === 0;

/**
 * Entities in `staged` (a schema) or live but not both, or whose reported fields or officers (slot, title, name)
 * differ; then the pairs of their records, before (live) and after (staged).
 */
async function stageEntities(client: pg.PoolClient, staged: string): Promise<number> {
  await client.query(`
    CREATE TEMP TABLE feed_differ ON COMMIT DROP AS
    SELECT coalesce(n.document_number, l.document_number) AS document_number
    FROM ${staged}.entities n FULL JOIN registry.entities l ON l.document_number = n.document_number
    WHERE l.document_number IS NULL OR n.document_number IS NULL
       OR ${tuple('l', ENTITY_FIELDS)} IS DISTINCT FROM ${tuple('n', ENTITY_FIELDS)}
    UNION
    SELECT coalesce(a.document_number, b.document_number)
    FROM registry.officers a
    FULL JOIN ${staged}.officers b ON b.document_number = a.document_number AND b.slot = a.slot
    WHERE a.document_number IS NULL OR b.document_number IS NULL
       OR (a.title, a.name) IS DISTINCT FROM (b.title, b.name)`);
  const officersOf = (table: string): string =>
    officerLists(`(SELECT o.* FROM ${table} o JOIN feed_differ d ON d.document_number = o.document_number)`);
  const { rowCount } = await client.query(`
    CREATE TEMP TABLE ${PAIRS} ON COMMIT DROP AS
    SELECT d.document_number, 0 AS ord, coalesce(n.entity_type, l.entity_type) AS entity_type,
           coalesce(n.principal_zip5, l.principal_zip5) AS zip5,
           l.document_number IS NOT NULL AS was, n.document_number IS NOT NULL AS is,
           ${fieldChanges('l', 'n', 'lo.officers', 'no.officers')} AS fields
    FROM feed_differ d
    LEFT JOIN registry.entities l ON l.document_number = d.document_number
    LEFT JOIN ${staged}.entities n ON n.document_number = d.document_number
    LEFT JOIN ${officersOf('registry.officers')} lo ON lo.document_number = d.document_number
    LEFT JOIN ${officersOf(`${staged}.officers`)} no ON no.document_number = d.document_number`);
  return rowCount ?? 0;
}

/** Filings in `staged` or live but not both, or whose fields differ, as pairs; typed by the live entity. */
async function stageFilings(client: pg.PoolClient, staged: string): Promise<number> {
  const compared = FILING_FIELDS.filter((f) => f !== 'sequence');
  const { rowCount } = await client.query(`
    CREATE TEMP TABLE ${PAIRS} ON COMMIT DROP AS
    SELECT coalesce(n.document_number, l.document_number) AS document_number, coalesce(n.sequence, l.sequence) AS ord,
           e.entity_type, e.principal_zip5 AS zip5, ${filingJson('l')} AS before, ${filingJson('n')} AS after
    FROM ${staged}.events n
    FULL JOIN registry.events l ON l.document_number = n.document_number AND l.sequence = n.sequence
    LEFT JOIN registry.entities e ON e.document_number = coalesce(n.document_number, l.document_number)
    WHERE l.document_number IS NULL OR n.document_number IS NULL
       OR ${tuple('l', compared)} IS DISTINCT FROM ${tuple('n', compared)}`);
  return rowCount ?? 0;
}

/** Before a snapshot's swap, in its transaction: its differences, or null on a first load. */
export async function stageSnapshotChanges(
  client: pg.PoolClient,
  kind: 'corporate' | 'events',
  staged: string,
): Promise<StagedChanges | null> {
  if (await isEmpty(client, kind === 'corporate' ? 'registry.entities' : 'registry.events')) return null;
  const differing = kind === 'corporate' ? await stageEntities(client, staged) : await stageFilings(client, staged);
  return {
    differing,
    write: (c, file) => writeChanges(c, `SELECT * FROM ${PAIRS}`, kind === 'corporate' ? 'entity' : 'filing', file),
  };
}
