// A full load of a quarterly snapshot: records are copied into fresh tables of the schema
// `registry_next`, indexed like the live ones, topped up with live changes newer than the snapshot,
// and swapped into `registry` in one transaction. Readers see the old dataset or the new, never a mix.
import { PGraph, PGraphError, type DependencyList, type PGraphNodeRecord } from 'p-graph';
import type pg from 'pg';
import { inTransaction } from '../../db/pool.js';
import { stageSnapshotChanges } from '../feed/snapshot.js';
import type { ImportObserver } from './observer.js';
import { parseCorporate, parseEvent, type CorporateRecord, type EventRecord } from '../parse.js';
import { applyCorporateChanges, applyEventChanges } from './changes.js';
import { CopyWriter } from './copy.js';
import {
  COUNTED_WORD,
  FREQUENT_WORD,
  corporateDerivations,
  eventDerivations,
  type Derivation,
  type WordThresholds,
} from './derived.js';
import { parseWorkers, readInParallel } from './parallel.js';
import type { Progress } from './progress.js';
import { readRecords, type ReadStats } from './read.js';
import { ENTITY_COLUMNS, EVENT_COLUMNS, OFFICER_COLUMNS, entityRow, eventRow, officerRows } from './rows.js';
import type { SourceFile } from './sources.js';

const NEXT = 'registry_next';

/** Snapshots from this size on are parsed on worker threads (below, starting them costs more than it saves). */
const PARALLEL_FROM_BYTES = 64 * 1024 * 1024;

/** How a snapshot is loaded; tests set smaller figures than a whole registry needs. */
export interface SnapshotOptions {
  /** Rows a word must be in to be frequent (FREQUENT_WORD). */
  frequentWord?: number;
  /** Rows a word of entity names must be in to have counts of its own (COUNTED_WORD). */
  countedWord?: number;
  /** Snapshot files from this many bytes on are parsed on worker threads (PARALLEL_FROM_BYTES). */
  parallelFromBytes?: number;
  /** Told of the swap in its transaction (src/registry/import/observer.ts). */
  observer?: ImportObserver;
}

interface Unit {
  /** Tables loaded straight from the records (COPY ... FREEZE into tables created in the same transaction). */
  readonly copied: ReadonlyArray<{ table: string; columns: readonly string[] }>;
  /** Tables built afterwards from the copied ones (from `registry_next`). */
  derivations(words: WordThresholds): Derivation[];
  /** Streams the file's records into the copy writers (in `copied` order). */
  read(file: SourceFile, writers: CopyWriter[], progress: Progress, parallelFromBytes: number): Promise<ReadStats>;
  /** Deletes duplicate keys (the last line wins) when the primary key cannot be built. */
  dedupe(client: pg.PoolClient): Promise<void>;
  /** Applies live rows newer than the snapshot to the staged tables. */
  carryOver(client: pg.PoolClient, snapshotDate: string): Promise<number>;
  /** What the observer is told the staged tables are. */
  readonly observed: 'corporate' | 'events';
}

const corporateUnit: Unit = {
  copied: [
    { table: 'entities', columns: ENTITY_COLUMNS },
    { table: 'officers', columns: OFFICER_COLUMNS },
  ],
  derivations: (words) => corporateDerivations(NEXT, words),
  async read(file, [entities, officers], progress, parallelFromBytes) {
    if (file.contentBytes >= parallelFromBytes)
      return readInParallel(file, 'corporate', [entities!, officers!], parseWorkers(), progress);
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
  async dedupe(client) {
    await client.query(
      `DELETE FROM ${NEXT}.entities a USING ${NEXT}.entities b
       WHERE a.document_number = b.document_number AND a.id < b.id`,
    );
    await client.query(
      `DELETE FROM ${NEXT}.officers o WHERE NOT EXISTS (SELECT 1 FROM ${NEXT}.entities e WHERE e.id = o.entity_id)`,
    );
  },
  async carryOver(client, snapshotDate) {
    await client.query(
      `CREATE TEMP TABLE chg_entities ON COMMIT DROP AS
       SELECT *, 0 AS ord FROM registry.entities WHERE source_date > $1`,
      [snapshotDate],
    );
    await client.query('UPDATE chg_entities SET id = NULL');
    await client.query(
      `CREATE TEMP TABLE chg_officers ON COMMIT DROP AS
       SELECT o.*, 0 AS ord FROM registry.officers o JOIN chg_entities c ON c.document_number = o.document_number`,
    );
    const counts = await applyCorporateChanges(client, NEXT, 'full load');
    return counts.loaded + counts.updated;
  },
  observed: 'corporate',
};

const eventUnit: Unit = {
  copied: [{ table: 'events', columns: EVENT_COLUMNS }],
  derivations: () => eventDerivations(NEXT),
  read: (file, [events], progress, parallelFromBytes) =>
    file.contentBytes >= parallelFromBytes
      ? readInParallel(file, 'events', [events!], parseWorkers(), progress)
      : readRecords<EventRecord>(
          file,
          parseEvent,
          (e) => events!.write(eventRow(e, file.fileDate)),
          () => events!.drained(),
          progress,
        ),
  async dedupe(client) {
    await client.query(
      `DELETE FROM ${NEXT}.events a USING ${NEXT}.events b
       WHERE a.document_number = b.document_number AND a.sequence = b.sequence AND a.ctid < b.ctid`,
    );
  },
  async carryOver(client, snapshotDate) {
    await client.query(
      `CREATE TEMP TABLE chg_events ON COMMIT DROP AS SELECT *, 0 AS ord FROM registry.events WHERE source_date > $1`,
      [snapshotDate],
    );
    const counts = await applyEventChanges(client, NEXT, 'full load');
    return counts.loaded + counts.updated;
  },
  observed: 'events',
};

/** The staged copy of a live table, with its storage options (fillfactor) before any row is written. */
async function createLike(client: pg.PoolClient, table: string): Promise<void> {
  await client.query(
    `CREATE TABLE ${NEXT}.${table} (LIKE registry.${table} INCLUDING DEFAULTS INCLUDING GENERATED INCLUDING STORAGE)`,
  );
  const { rows } = await client.query<{ options: string | null }>(
    `SELECT array_to_string(reloptions, ', ') AS options FROM pg_class WHERE oid = ('registry.' || $1)::regclass`,
    [table],
  );
  if (rows[0]?.options) await client.query(`ALTER TABLE ${NEXT}.${table} SET (${rows[0].options})`);
}

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

/** What a statement builds, for the log: the index or constraint it names. */
const builtName = (sql: string): string => /(?:INDEX|CONSTRAINT) (\S+)/.exec(sql)?.[1] ?? sql.slice(0, 40);

/**
 * The memory a GIN index build gathers its keys in before writing them out. A GIN build keeps its
 * keys in a balanced tree, and a larger tree cost more CPU than the extra passes it saves: at 12.6
 * million entities, built alone on one core, the city-words index took 120 CPU-seconds with 1.5 GB
 * and 77 with 64 MB (16 MB: 87, 256 MB: 92); with a parallel worker (PostgreSQL 18) 66 and 63, the
 * address words 48 and 41, the officers' words 21 to 24 and 19 to 20.
 */
const GIN_BUILD_MEMORY = '64MB';

/** Runs an index or constraint statement; a GIN build with GIN_BUILD_MEMORY. */
function build(pool: pg.Pool, sql: string): Promise<unknown> {
  if (!/ USING gin /i.test(sql)) return pool.query(sql);
  return inTransaction(pool, async (c) => {
    await c.query(`SET LOCAL maintenance_work_mem = '${GIN_BUILD_MEMORY}'`);
    await c.query(sql);
  });
}

/**
 * Builds the derived tables, the indexes and constraints of every table, and their statistics, as one
 * graph on two connections: each table's indexes start once it is built, its statistics once they are,
 * and a connection free takes the ready step with the longest chain of work behind it (the size of
 * the copied table each step reads stands for its work). Run one phase after another, the derived
 * tables, built one statement at a time, kept a core idle for about a quarter of the load.
 */
async function buildTables(
  pool: pg.Pool,
  unit: Unit,
  derivations: ReadonlyMap<string, Derivation>,
  definitions: ReadonlyMap<string, { constraints: string[]; indexes: string[] }>,
  log: (line: string) => void,
): Promise<void> {
  const { rows } = await pool.query<{ relname: string; pages: number }>(
    `SELECT relname, greatest(relpages, 1) AS pages
     FROM pg_class WHERE relnamespace = '${NEXT}'::regnamespace AND relname = ANY($1::text[])`,
    [unit.copied.map((c) => c.table)],
  );
  const pages = new Map(rows.map((r) => [r.relname, Number(r.pages)]));
  const nodes: PGraphNodeRecord = {};
  const edges: DependencyList = [];
  const timed = (what: string, run: () => Promise<unknown>) => async (): Promise<void> => {
    const started = Date.now();
    await run();
    log(`  ${what} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  };
  for (const table of [...unit.copied.map((c) => c.table), ...derivations.keys()]) {
    const derived = derivations.get(table);
    const priority = pages.get(derived?.reads ?? table) ?? 1;
    const { constraints, indexes } = definitions.get(table)!;
    if (derived) {
      // Created in the transaction that fills it: on a server without replicas (wal_level=minimal,
      // as the embedded one) its rows then skip the write-ahead log. Sorting and grouping a whole
      // table is maintenance work, sized as such, not as one query's sort. PostgreSQL memoizes the
      // unnest of each row's word array, though nearly every array is new to the cache: without it the
      // word dictionaries, postings and counts took 8 to 15 CPU-seconds less each at 12.6 million entities.
      nodes[`derive:${table}`] = {
        priority,
        run: timed(`derived ${table}`, () =>
          inTransaction(pool, async (c) => {
            await c.query(
              `SELECT set_config('work_mem', current_setting('maintenance_work_mem'), true),
                      set_config('enable_memoize', 'off', true)`,
            );
            await createLike(c, table);
            await derived.build(c);
          }),
        ),
      };
      for (const before of derived.after) edges.push([`derive:${before}`, `derive:${table}`]);
    }
    const built = derived ? [`derive:${table}`] : [];
    // A constraint locks its table whole: the table's indexes wait for it rather than for a lock, and
    // it waits for the derivations reading the table rather than for their locks (entity_words' key
    // held a connection idle for 60 s at 12.6 million entities). A copied table's keys are in place
    // already: they find a snapshot's repeated records.
    const readers = [...derivations.values()].filter((d) => d.after.includes(table)).map((d) => `derive:${d.table}`);
    const keys = (derived ? constraints : []).map((sql, i) => {
      const id = `key:${table}:${i}`;
      nodes[id] = { priority, run: timed(builtName(sql), () => build(pool, sql)) };
      for (const b of [...built, ...readers]) edges.push([b, id]);
      return id;
    });
    const ready = [...built, ...keys];
    const all = [...ready];
    indexes.forEach((sql, i) => {
      const id = `index:${table}:${i}`;
      nodes[id] = { priority, run: timed(builtName(sql), () => build(pool, sql)) };
      for (const b of ready) edges.push([b, id]);
      all.push(id);
    });
    // Derived rows were inserted, not copied frozen: vacuumed, their pages are marked all-visible and
    // index-only scans (the ranked postings' filtered pages) skip the table. Only when no statement
    // older than the rows still runs on the other connection, though: the import vacuums the postings
    // again once the load is in (vacuum.ts).
    const analyze = `${derived ? 'VACUUM (ANALYZE)' : 'ANALYZE'} ${NEXT}.${table}`;
    nodes[`analyze:${table}`] = { priority: 1, run: timed(`statistics of ${table}`, () => pool.query(analyze)) };
    for (const b of all) edges.push([b, `analyze:${table}`]);
  }
  try {
    await new PGraph(nodes, edges).run({ concurrency: 2 });
  } catch (err) {
    throw err instanceof PGraphError ? (err.taskErrors[0] ?? err) : err;
  }
}

async function copyRecords(
  pool: pg.Pool,
  unit: Unit,
  file: SourceFile,
  progress: Progress,
  parallelFromBytes: number,
): Promise<ReadStats> {
  const clients = await Promise.all(unit.copied.map(() => pool.connect()));
  const writers: CopyWriter[] = [];
  try {
    for (const [i, { table, columns }] of unit.copied.entries()) {
      const client = clients[i]!;
      await client.query('BEGIN');
      await createLike(client, table);
      writers.push(new CopyWriter(client, `COPY ${NEXT}.${table} (${columns.join(', ')}) FROM STDIN WITH (FREEZE)`));
    }
    const stats = await unit.read(file, writers, progress, parallelFromBytes);
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
  /** The observer's records written, and its time (0 and 0 when it observed nothing). */
  events: number;
  observerMs: number;
  /** The changes written into the change feed, and their time (comparison included). */
  changes: number;
  changesMs: number;
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
  {
    frequentWord = FREQUENT_WORD,
    countedWord = COUNTED_WORD,
    parallelFromBytes = PARALLEL_FROM_BYTES,
    observer,
  }: SnapshotOptions = {},
): Promise<SnapshotResult> {
  let stepStarted = Date.now();
  const step = (what: string): void => {
    log(`${file.name}: ${what} in ${((Date.now() - stepStarted) / 1000).toFixed(1)} s`);
    stepStarted = Date.now();
  };
  const unit = file.kind === 'quarterly_corporate' ? corporateUnit : eventUnit;
  const derivations = new Map(
    unit.derivations({ frequent: frequentWord, counted: countedWord }).map((d) => [d.table, d]),
  );
  const tables = [...unit.copied.map((c) => c.table), ...derivations.keys()];
  await pool.query(`DROP SCHEMA IF EXISTS ${NEXT} CASCADE`);
  await pool.query(`CREATE SCHEMA ${NEXT}`);
  try {
    progress.start(`loading ${file.name}`, file.contentBytes);
    let stats: ReadStats;
    try {
      stats = await copyRecords(pool, unit, file, progress, parallelFromBytes);
    } finally {
      progress.stop();
    }
    step(`copied ${stats.read} records`);
    check(stats);
    const definitions = new Map(
      await Promise.all(tables.map(async (t) => [t, await indexStatements(pool, t)] as const)),
    );
    const of = (names: readonly string[], part: 'constraints' | 'indexes'): string[] =>
      names.flatMap((t) => definitions.get(t)![part]);
    await addKeys(
      pool,
      unit,
      of(
        unit.copied.map((c) => c.table),
        'constraints',
      ),
    );
    step('primary keys');
    await buildTables(pool, unit, derivations, definitions, log);
    step('derived tables, indexes and statistics');
    const carriedOver = await inTransaction(pool, (c) => unit.carryOver(c, file.fileDate));
    step(`carried over ${carriedOver} newer records`);

    const { rows } = await pool.query<{ n: number }>(`SELECT count(*) AS n FROM ${NEXT}.${unit.copied[0]!.table}`);
    const result: SnapshotResult = {
      ...stats,
      loaded: rows[0]!.n,
      carriedOver,
      events: 0,
      observerMs: 0,
      changes: 0,
      changesMs: 0,
    };
    await inTransaction(pool, async (client) => {
      // The change feed and the observer write what they report with the swap, in its transaction: they compare
      // before the swap (readers keep the live tables meanwhile) and write after it.
      stepStarted = Date.now();
      const feedStarted = stepStarted;
      const feed = await stageSnapshotChanges(client, unit.observed, NEXT);
      if (feed) step(`change feed diff: ${feed.differing} differ`);
      const feedMs = Date.now() - feedStarted;
      const started = Date.now();
      stepStarted = started;
      const observation = observer ? await observer.snapshotStaged(client, unit.observed, NEXT, step) : null;
      if (observation) step(`${observer!.name} read before the swap`);
      const observerMs = Date.now() - started;
      await client.query("SET LOCAL lock_timeout = '60s'");
      await client.query('CREATE SCHEMA registry_retired');
      for (const t of tables) {
        await client.query(`ALTER TABLE registry.${t} SET SCHEMA registry_retired`);
        await client.query(`ALTER TABLE ${NEXT}.${t} SET SCHEMA registry`);
      }
      await client.query('DROP SCHEMA registry_retired CASCADE');
      await client.query(`DROP SCHEMA ${NEXT}`);
      stepStarted = Date.now();
      if (observation) {
        result.events = await observation.after(client, file.name);
        result.observerMs = observerMs + Date.now() - stepStarted;
        step(`${observer!.name} events: ${result.events} written`);
      }
      if (feed) {
        const written = Date.now();
        result.changes = await feed.write(client, { name: file.name, date: file.fileDate });
        result.changesMs = feedMs + Date.now() - written;
        step(`change feed: ${result.changes} changes written`);
      }
      await finish(client, result);
    });
    return result;
  } catch (err) {
    await pool.query(`DROP SCHEMA IF EXISTS ${NEXT} CASCADE`).catch(() => {});
    throw err;
  }
}
