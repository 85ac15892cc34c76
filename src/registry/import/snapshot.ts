// A full load of a quarterly snapshot: records are copied into fresh tables of the schema
// `registry_next`, indexed like the live ones, topped up with live changes newer than the snapshot,
// and swapped into `registry` in one transaction. Readers see the old dataset or the new, never a mix.
import type pg from 'pg';
import { inTransaction } from '../../db/pool.js';
import { parseCorporate, parseEvent, type CorporateRecord, type EventRecord } from '../parse.js';
import { applyCorporateChanges, applyEventChanges } from './changes.js';
import { CopyWriter } from './copy.js';
import { FREQUENT_WORD, buildCorporateDerived, buildEventDerived } from './derived.js';
import { parseWorkers, readCorporateInParallel } from './parallel.js';
import type { Progress } from './progress.js';
import { readRecords, type ReadStats } from './read.js';
import { ENTITY_COLUMNS, EVENT_COLUMNS, OFFICER_COLUMNS, entityRow, eventRow, officerRows } from './rows.js';
import type { SourceFile } from './sources.js';

const NEXT = 'registry_next';

/** Snapshots from this size on are parsed on worker threads (below, starting them costs more than it saves). */
const PARALLEL_FROM_BYTES = 64 * 1024 * 1024;

interface Unit {
  /** Tables loaded straight from the records (COPY ... FREEZE into tables created in the same transaction). */
  readonly copied: ReadonlyArray<{ table: string; columns: readonly string[] }>;
  /** Tables built afterwards from the copied ones. */
  readonly derived: readonly string[];
  /** Streams the file's records into the copy writers (in `copied` order). */
  read(file: SourceFile, writers: CopyWriter[], progress: Progress): Promise<ReadStats>;
  derive(client: pg.PoolClient, frequentWord: number): Promise<void>;
  /** Deletes duplicate keys (the last line wins) when the primary key cannot be built. */
  dedupe(client: pg.PoolClient): Promise<void>;
  /** Applies live rows newer than the snapshot to the staged tables. */
  carryOver(client: pg.PoolClient, snapshotDate: string): Promise<number>;
}

const corporateUnit: Unit = {
  copied: [
    { table: 'entities', columns: ENTITY_COLUMNS },
    { table: 'officers', columns: OFFICER_COLUMNS },
  ],
  derived: ['agent_spellings', 'agents', 'entity_words', 'officer_words', 'agent_words', 'address_words', 'entity_counts', 'entity_day_counts', 'entity_postings'],
  async read(file, [entities, officers], progress) {
    if (file.contentBytes >= PARALLEL_FROM_BYTES) return readCorporateInParallel(file, [entities!, officers!], parseWorkers(), progress);
    let id = 0;
    return readRecords<CorporateRecord>(
      file,
      parseCorporate,
      (r) => {
        id++;
        entities!.write(entityRow(r, id, file.fileDate));
        for (const o of officerRows(r, id)) officers!.write(o);
      },
      async () => {
        await entities!.drained();
        await officers!.drained();
      },
      progress,
    );
  },
  derive: (client, frequentWord) => buildCorporateDerived(client, NEXT, frequentWord),
  async dedupe(client) {
    await client.query(`DELETE FROM ${NEXT}.entities a USING ${NEXT}.entities b WHERE a.document_number = b.document_number AND a.id < b.id`);
    await client.query(`DELETE FROM ${NEXT}.officers o WHERE NOT EXISTS (SELECT 1 FROM ${NEXT}.entities e WHERE e.id = o.entity_id)`);
  },
  async carryOver(client, snapshotDate) {
    await client.query(
      `CREATE TEMP TABLE chg_entities ON COMMIT DROP AS SELECT *, 0 AS ord FROM registry.entities WHERE source_date > $1`,
      [snapshotDate],
    );
    await client.query('UPDATE chg_entities SET id = NULL');
    await client.query(
      `CREATE TEMP TABLE chg_officers ON COMMIT DROP AS
       SELECT o.*, 0 AS ord FROM registry.officers o JOIN chg_entities c ON c.document_number = o.document_number`,
    );
    const counts = await applyCorporateChanges(client, NEXT);
    return counts.loaded + counts.updated;
  },
};

const eventUnit: Unit = {
  copied: [{ table: 'events', columns: EVENT_COLUMNS }],
  derived: ['inactivations'],
  read: (file, [events], progress) =>
    readRecords<EventRecord>(file, parseEvent, (e) => events!.write(eventRow(e, file.fileDate)), () => events!.drained(), progress),
  derive: (client) => buildEventDerived(client, NEXT),
  async dedupe(client) {
    await client.query(
      `DELETE FROM ${NEXT}.events a USING ${NEXT}.events b
       WHERE a.document_number = b.document_number AND a.sequence = b.sequence AND a.ctid < b.ctid`,
    );
  },
  async carryOver(client, snapshotDate) {
    await client.query(`CREATE TEMP TABLE chg_events ON COMMIT DROP AS SELECT *, 0 AS ord FROM registry.events WHERE source_date > $1`, [
      snapshotDate,
    ]);
    const counts = await applyEventChanges(client, NEXT);
    return counts.loaded + counts.updated;
  },
};

const createLike = (table: string): string =>
  `CREATE TABLE ${NEXT}.${table} (LIKE registry.${table} INCLUDING DEFAULTS INCLUDING GENERATED INCLUDING STORAGE)`;

/** The live table's constraints and indexes, as statements for its staged copy. */
async function indexStatements(pool: pg.Pool, table: string): Promise<{ constraints: string[]; indexes: string[] }> {
  const { rows: cons } = await pool.query<{ sql: string }>(
    `SELECT format('ALTER TABLE ${NEXT}.%I ADD CONSTRAINT %I %s', $1::text, conname, pg_get_constraintdef(c.oid)) AS sql
     FROM pg_constraint c WHERE conrelid = ('registry.' || $1)::regclass AND contype IN ('p', 'u')`,
    [table],
  );
  const { rows: idx } = await pool.query<{ sql: string }>(
    `SELECT replace(pg_get_indexdef(i.indexrelid), ' ON registry.', ' ON ${NEXT}.') AS sql
     FROM pg_index i WHERE i.indrelid = ('registry.' || $1)::regclass
       AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)`,
    [table],
  );
  return { constraints: cons.map((r) => r.sql), indexes: idx.map((r) => r.sql) };
}

/** Runs statements on up to `width` connections at once (index builds use both cores). */
async function runConcurrently(pool: pg.Pool, statements: string[], width = 2): Promise<void> {
  const queue = [...statements];
  await Promise.all(
    Array.from({ length: width }, async () => {
      for (let sql = queue.shift(); sql; sql = queue.shift()) await pool.query(sql);
    }),
  );
}

async function copyRecords(pool: pg.Pool, unit: Unit, file: SourceFile, progress: Progress): Promise<ReadStats> {
  const clients = await Promise.all(unit.copied.map(() => pool.connect()));
  const writers: CopyWriter[] = [];
  try {
    for (const [i, { table, columns }] of unit.copied.entries()) {
      const client = clients[i]!;
      await client.query('BEGIN');
      await client.query(createLike(table));
      writers.push(new CopyWriter(client, `COPY ${NEXT}.${table} (${columns.join(', ')}) FROM STDIN WITH (FREEZE)`));
    }
    const stats = await unit.read(file, writers, progress);
    for (const [i, w] of writers.entries()) {
      await w.end();
      await clients[i]!.query('COMMIT');
    }
    return stats;
  } catch (err) {
    // A connection in COPY mode takes no ROLLBACK until its COPY is abandoned.
    await Promise.all(writers.map((w) => w.abort(err instanceof Error ? err : new Error(String(err)))));
    await Promise.all(clients.map((c) => c.query('ROLLBACK').catch(() => {})));
    throw err;
  } finally {
    for (const c of clients) c.release();
  }
}

async function addKeys(pool: pg.Pool, unit: Unit, constraints: string[]): Promise<void> {
  try {
    await runConcurrently(pool, constraints);
  } catch (err) {
    if ((err as { code?: string }).code !== '23505') throw err;
    // A snapshot repeating a key: keep the last record, as newest-wins would.
    await inTransaction(pool, (c) => unit.dedupe(c));
    for (const sql of constraints) {
      await pool.query(sql).catch((e: { code?: string }) => {
        if (e.code !== '42P07' && e.code !== '42P16') throw e; // already added before the failure
      });
    }
  }
}

export interface SnapshotResult extends ReadStats {
  loaded: number;
  carriedOver: number;
}

/**
 * Loads a quarterly snapshot into `registry_next` and swaps it in; `finish` runs inside the swap
 * transaction (to record the import with it). `check` sees the records read and may throw to give
 * the snapshot up before anything is built from it.
 */
export async function loadSnapshot(
  pool: pg.Pool,
  file: SourceFile,
  progress: Progress,
  log: (line: string) => void,
  finish: (client: pg.PoolClient, result: SnapshotResult) => Promise<void>,
  check: (stats: ReadStats) => void = () => {},
  frequentWord = FREQUENT_WORD,
): Promise<SnapshotResult> {
  let stepStarted = Date.now();
  const step = (what: string): void => {
    log(`${file.name}: ${what} in ${((Date.now() - stepStarted) / 1000).toFixed(1)} s`);
    stepStarted = Date.now();
  };
  const unit = file.kind === 'quarterly_corporate' ? corporateUnit : eventUnit;
  const tables = [...unit.copied.map((c) => c.table), ...unit.derived];
  await pool.query(`DROP SCHEMA IF EXISTS ${NEXT} CASCADE`);
  await pool.query(`CREATE SCHEMA ${NEXT}`);
  try {
    progress.start(`loading ${file.name}`, file.contentBytes);
    let stats: ReadStats;
    try {
      stats = await copyRecords(pool, unit, file, progress);
    } finally {
      progress.stop();
    }
    step(`copied ${stats.read} records`);
    check(stats);
    const definitions = new Map(await Promise.all(tables.map(async (t) => [t, await indexStatements(pool, t)] as const)));
    const of = (names: readonly string[], part: 'constraints' | 'indexes'): string[] => names.flatMap((t) => definitions.get(t)![part]);
    await addKeys(pool, unit, of(unit.copied.map((c) => c.table), 'constraints'));
    step('primary keys');
    // Created in the transaction that fills them: on a server without replicas (wal_level=minimal,
    // as the embedded one) their rows then skip the write-ahead log.
    await inTransaction(pool, async (c) => {
      for (const t of unit.derived) await c.query(createLike(t));
      await unit.derive(c, frequentWord);
    });
    step('derived tables');
    await runConcurrently(pool, [...of(unit.derived, 'constraints'), ...of(tables, 'indexes')]);
    step('indexes');
    const carriedOver = await inTransaction(pool, (c) => unit.carryOver(c, file.fileDate));
    step(`carried over ${carriedOver} newer records`);
    // Derived rows were inserted, not copied frozen: vacuumed, their pages are marked all-visible and
    // index-only scans (the ranked postings' filtered pages) skip the table.
    for (const t of tables) await pool.query(`${unit.derived.includes(t) ? 'VACUUM (ANALYZE)' : 'ANALYZE'} ${NEXT}.${t}`);
    step('analyzed');

    const { rows } = await pool.query<{ n: number }>(`SELECT count(*) AS n FROM ${NEXT}.${unit.copied[0]!.table}`);
    const result: SnapshotResult = { ...stats, loaded: rows[0]!.n, carriedOver };
    await inTransaction(pool, async (client) => {
      await client.query("SET LOCAL lock_timeout = '60s'");
      await client.query('CREATE SCHEMA registry_retired');
      for (const t of tables) {
        await client.query(`ALTER TABLE registry.${t} SET SCHEMA registry_retired`);
        await client.query(`ALTER TABLE ${NEXT}.${t} SET SCHEMA registry`);
      }
      await client.query('DROP SCHEMA registry_retired CASCADE');
      await client.query(`DROP SCHEMA ${NEXT}`);
      await finish(client, result);
    });
    return result;
  } catch (err) {
    await pool.query(`DROP SCHEMA IF EXISTS ${NEXT} CASCADE`).catch(() => {});
    throw err;
  }
}
