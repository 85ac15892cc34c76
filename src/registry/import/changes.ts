// Applying a set of changed records (a daily file, a loose snapshot member, or the rows a snapshot
// load carries over from the live dataset) inside the caller's transaction. Records are first copied
// into temp tables `chg_*`; a record replaces the stored one unless the stored one is newer.
import type pg from 'pg';
import type { CountMoves } from '../dataset.js';
import { CopyWriter, type CopyValue } from './copy.js';
import { type Schema, refreshCorporateDerived, refreshEventDerived, rememberCorporateDerived } from './derived.js';
import { NEXT_VERSION } from './history.js';
import { ENTITY_COLUMNS, EVENT_COLUMNS, OFFICER_COLUMNS } from './rows.js';

export interface ChangeCounts {
  loaded: number;
  updated: number;
  skippedOlder: number;
  /** How the set moves the dataset's counts. */
  moved: CountMoves;
}

const cols = (c: readonly string[]): string => c.join(', ');
const assignments = (c: readonly string[], skip: string[]): string =>
  c
    .filter((x) => !skip.includes(x))
    .map((x) => `${x} = excluded.${x}`)
    .join(', ');

/** Runs an INSERT ... ON CONFLICT DO UPDATE and counts the rows it inserted and the rows it replaced. */
async function upsertCounted(client: pg.PoolClient, upsert: string): Promise<{ loaded: number; updated: number }> {
  const { rows } = await client.query<{ loaded: number; updated: number }>(`
    WITH w AS (${upsert} RETURNING (xmax = 0) AS inserted)
    SELECT count(*) FILTER (WHERE inserted) AS loaded, count(*) FILTER (WHERE NOT inserted) AS updated FROM w`);
  return rows[0] ?? { loaded: 0, updated: 0 };
}

/** What a written row's `changed_in` says: the version its change set makes, or 0 in a full load. */
const changedInValue = (changedIn: 'next version' | 'full load'): string =>
  changedIn === 'full load' ? '0' : NEXT_VERSION;

/** A change set being written: rows carry `ord`, their line order, so the last of duplicates wins. */
export interface ChangeWriter {
  entity(row: CopyValue[], ord: number): void;
  officer(row: CopyValue[], ord: number): void;
  event(row: CopyValue[], ord: number): void;
  /** Copies what is pending when enough has gathered (between batches). */
  pump(): Promise<void>;
  end(): Promise<void>;
}

/** Creates the temp tables of a change set on `client` (inside a transaction) and opens COPY into them. */
export async function openChangeSet(client: pg.PoolClient, kind: 'corporate' | 'events'): Promise<ChangeWriter> {
  if (kind === 'corporate') {
    await client.query(
      'CREATE TEMP TABLE chg_entities ON COMMIT DROP AS SELECT *, 0 AS ord FROM registry.entities WITH NO DATA',
    );
    await client.query(
      'CREATE TEMP TABLE chg_officers ON COMMIT DROP AS SELECT *, 0 AS ord FROM registry.officers WITH NO DATA',
    );
  } else {
    await client.query(
      'CREATE TEMP TABLE chg_events ON COMMIT DROP AS SELECT *, 0 AS ord FROM registry.events WITH NO DATA',
    );
  }
  // One COPY at a time per connection: rows are gathered per table and copied table by table.
  const pending: Record<'entity' | 'officer' | 'event', CopyValue[][]> = { entity: [], officer: [], event: [] };
  const targets = {
    entity: ['chg_entities', ENTITY_COLUMNS],
    officer: ['chg_officers', OFFICER_COLUMNS],
    event: ['chg_events', EVENT_COLUMNS],
  } as const;
  const flush = async (which: keyof typeof pending): Promise<void> => {
    const rows = pending[which];
    if (rows.length === 0) return;
    pending[which] = [];
    const [table, columns] = targets[which];
    const copy = new CopyWriter(client, `COPY ${table} (${cols(columns)}, ord) FROM STDIN`);
    for (const r of rows) copy.write(r);
    await copy.end();
  };
  const kinds = Object.keys(pending) as Array<keyof typeof pending>;
  return {
    entity: (row, ord) => void pending.entity.push([...row, ord]),
    officer: (row, ord) => void pending.officer.push([...row, ord]),
    event: (row, ord) => void pending.event.push([...row, ord]),
    pump: async () => {
      for (const k of kinds) if (pending[k].length >= 5000) await flush(k);
    },
    end: async () => {
      for (const k of kinds) await flush(k);
    },
  };
}

/**
 * Applies `chg_entities`/`chg_officers` to schema `s`, marking each row written with `changedIn`: the version
 * the change set makes (a daily file), or 0 (rows carried into a full load, whose version no cursor reads past).
 */
export async function applyCorporateChanges(
  client: pg.PoolClient,
  s: Schema,
  changedIn: 'next version' | 'full load',
): Promise<ChangeCounts> {
  // The last line for a document number wins within the set.
  await client.query(
    `DELETE FROM chg_entities a USING chg_entities b WHERE a.document_number = b.document_number AND a.ord < b.ord`,
  );
  const stale = await client.query(
    `DELETE FROM chg_entities c USING ${s}.entities e
     WHERE e.document_number = c.document_number AND e.source_date > c.source_date`,
  );
  await client.query(
    `DELETE FROM chg_officers o
     WHERE NOT EXISTS (SELECT 1 FROM chg_entities c WHERE c.document_number = o.document_number AND c.ord = o.ord)`,
  );
  await rememberCorporateDerived(client, s);

  // Known entities keep their id; new ones continue the sequence (imports run one at a time).
  await client.query(
    `UPDATE chg_entities c SET id = e.id FROM ${s}.entities e WHERE e.document_number = c.document_number`,
  );
  await client.query(`
    UPDATE chg_entities c SET id = n.id FROM (
      SELECT document_number, (SELECT coalesce(max(id), 0) FROM ${s}.entities) + row_number() OVER (ORDER BY ord) AS id
      FROM chg_entities WHERE id IS NULL
    ) n WHERE n.document_number = c.document_number`);

  const written = await upsertCounted(
    client,
    `INSERT INTO ${s}.entities (${cols(ENTITY_COLUMNS)}, changed_in)
     SELECT ${cols(ENTITY_COLUMNS)}, ${changedInValue(changedIn)} FROM chg_entities
     ON CONFLICT (document_number) DO UPDATE
     SET ${assignments(ENTITY_COLUMNS, ['id', 'document_number'])}, changed_in = excluded.changed_in`,
  );

  // An entity's record lists all its officers; most changes (reports, addresses, agents) leave them
  // as they were. Only the slots that differ are rewritten: each officer row costs five index entries.
  const officerCols = OFFICER_COLUMNS.filter((c) => c !== 'entity_id');
  const described = officerCols.filter((c) => c !== 'document_number' && c !== 'slot');
  const replaced = await client.query(`
    DELETE FROM ${s}.officers t USING chg_entities c
    WHERE t.document_number = c.document_number AND NOT EXISTS (
      SELECT 1 FROM chg_officers o
      WHERE o.document_number = t.document_number AND o.slot = t.slot AND t.entity_id = c.id
        AND (${described.map((x) => `o.${x}`).join(', ')})
            IS NOT DISTINCT FROM (${described.map((x) => `t.${x}`).join(', ')}))`);
  const officers = await client.query(`
    INSERT INTO ${s}.officers (${cols(OFFICER_COLUMNS)})
    SELECT c.id, ${officerCols.map((c) => `o.${c}`).join(', ')}
    FROM chg_officers o JOIN chg_entities c ON c.document_number = o.document_number
    WHERE NOT EXISTS (SELECT 1 FROM ${s}.officers t WHERE t.document_number = o.document_number AND t.slot = o.slot)`);

  const agents = await refreshCorporateDerived(client, s);
  const moved = {
    entities: written.loaded,
    officers: (officers.rowCount ?? 0) - (replaced.rowCount ?? 0),
    events: 0,
    agents,
  };
  return { ...written, skippedOlder: stale.rowCount ?? 0, moved };
}

/** Applies `chg_events` to schema `s`, marking each row written as applyCorporateChanges does. */
export async function applyEventChanges(
  client: pg.PoolClient,
  s: Schema,
  changedIn: 'next version' | 'full load',
): Promise<ChangeCounts> {
  await client.query(
    `DELETE FROM chg_events a USING chg_events b
     WHERE a.document_number = b.document_number AND a.sequence = b.sequence AND a.ord < b.ord`,
  );
  const stale = await client.query(`
    DELETE FROM chg_events c USING ${s}.events e
    WHERE e.document_number = c.document_number AND e.sequence = c.sequence AND e.source_date > c.source_date`);
  const written = await upsertCounted(
    client,
    `INSERT INTO ${s}.events (${cols(EVENT_COLUMNS)}, changed_in)
     SELECT ${cols(EVENT_COLUMNS)}, ${changedInValue(changedIn)} FROM chg_events
     ON CONFLICT (document_number, sequence)
     DO UPDATE SET ${assignments(EVENT_COLUMNS, ['document_number', 'sequence'])}, changed_in = excluded.changed_in`,
  );
  await refreshEventDerived(client, s);
  return {
    ...written,
    skippedOlder: stale.rowCount ?? 0,
    moved: { entities: 0, officers: 0, events: written.loaded, agents: 0 },
  };
}
