// The dataset as the change feed's records (docs/contract.md, "Bulk snapshots"): every entity with the fields a
// change reports (its officers as their list), every filing with a filing change's fields, read in document-number
// order in one consistent snapshot of the database. Read between import runs, under the importer's lock: imports
// wait for the read to end (a full load's swap never waits behind it), and the dataset version, the feed's last
// number and the rows are those of one moment.
import type pg from 'pg';
import { IMPORT_LOCK } from '../import/index.js';
import { ENTITY_FIELDS, FILING_FIELDS } from './fields.js';

/** A column of the records: text, a number, or a list (JSON). */
export interface RecordColumn {
  readonly name: string;
  readonly type: 'string' | 'number' | 'json';
}

type RecordRow = Readonly<Record<string, unknown>>;

const DATES: readonly string[] = ['filing_date', 'last_transaction_date', 'effective_date', 'filed_date'];
const LISTS: readonly string[] = ['annual_reports', 'officers'];

const typed = (name: string): RecordColumn => ({
  name,
  type: LISTS.includes(name) ? 'json' : name === 'sequence' ? 'number' : 'string',
});
/** A column as selected from `t`: dates as their YYYY-MM-DD text, the feed's own form. */
const selected = (t: string, name: string): string => (DATES.includes(name) ? `${t}.${name}::text` : `${t}.${name}`);

const ENTITY_COLUMNS = ['document_number', ...ENTITY_FIELDS, 'officers'];
const FILING_COLUMNS = ['document_number', ...FILING_FIELDS];

/** The tables of records, each with its columns and its query in document-number order. */
export const RECORD_TABLES = {
  entities: {
    columns: ENTITY_COLUMNS.map(typed),
    query: `SELECT ${ENTITY_COLUMNS.filter((c) => c !== 'officers')
      .map((c) => selected('e', c))
      .join(', ')}, coalesce(o.officers, '[]'::jsonb) AS officers
      FROM registry.entities e
      LEFT JOIN LATERAL (
        SELECT jsonb_agg(jsonb_build_object('slot', slot, 'title', title, 'name', name) ORDER BY slot) AS officers
        FROM registry.officers WHERE document_number = e.document_number) o ON true
      ORDER BY e.document_number`,
  },
  filings: {
    columns: FILING_COLUMNS.map(typed),
    query: `SELECT ${FILING_COLUMNS.map((c) => selected('f', c)).join(', ')}
      FROM registry.events f ORDER BY f.document_number, f.sequence`,
  },
} as const;

export type RecordTable = keyof typeof RECORD_TABLES;
export const RECORD_TABLE_NAMES = Object.keys(RECORD_TABLES) as RecordTable[];

/** Where the read stands: the dataset version, the feed's last number, and the newest import's instant and file. */
export interface RecordsAt {
  readonly version: number;
  readonly lastSequence: number;
  readonly importedAt: string | null;
  readonly newestFileDate: string | null;
}

export interface RecordRead {
  readonly at: RecordsAt;
  /** The table's records, `rows` at a time. */
  batches(table: RecordTable, rows: number): AsyncIterable<RecordRow[]>;
  /** Ends the read and lets imports run again. */
  close(): Promise<void>;
}

/** Opens a read of the whole dataset, or null while an import runs (or another read holds the lock). */
export async function openRecords(pool: pg.Pool): Promise<RecordRead | null> {
  const client = await pool.connect();
  try {
    const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [IMPORT_LOCK]);
    if (!rows[0]!.ok) {
      client.release();
      return null;
    }
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const { rows: state } = await client.query<RecordsAt>(
      `SELECT d.version, s.last_sequence AS "lastSequence", d.newest_file_date::text AS "newestFileDate",
              to_char(d.last_import_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS "importedAt"
       FROM dataset_state d, registry.change_state s`,
    );
    const at = state[0]!;
    return {
      at: { ...at, version: Number(at.version), lastSequence: Number(at.lastSequence) },
      async *batches(table, n) {
        await client.query(`DECLARE records_${table} NO SCROLL CURSOR FOR ${RECORD_TABLES[table].query}`);
        for (;;) {
          const { rows: batch } = await client.query<RecordRow>(`FETCH FORWARD ${Math.trunc(n)} FROM records_${table}`);
          if (batch.length === 0) break;
          yield batch;
        }
        await client.query(`CLOSE records_${table}`);
      },
      async close() {
        try {
          await client.query('ROLLBACK');
          await client.query('SELECT pg_advisory_unlock($1)', [IMPORT_LOCK]);
          client.release();
        } catch (err) {
          // A connection closed ends its transaction and its lock with it.
          client.release(true);
          throw err;
        }
      },
    };
  } catch (err) {
    client.release(true);
    throw err;
  }
}
