// The events of one import, written in its transaction (the outbox, docs/webhooks.md "Events"): what a
// watched entity's record changed, which touched entities newly match a saved search, and new filing
// events of watched entities. Only the entities the file touched are compared (a snapshot's: those it
// changes, snapshot.ts), saved searches only on those whose searched fields change (matches.ts), and only
// when some workspace watches or saves a search: an import nobody monitors reads two empty tables more.
import type pg from 'pg';
import { compileSearches, copyTouchedOfficers, judgedChanges, matchesOfTouched, type SavedSearch } from './matches.js';
import { eventId, type EventType } from './events.js';

/** The record fields an `entity.updated` reports (officers are compared as one list). */
export const WATCHED_FIELDS = [
  'name',
  'status',
  'entity_type',
  'filing_date',
  'fei',
  'state_of_formation',
  'last_transaction_date',
  'principal_addr1',
  'principal_addr2',
  'principal_city',
  'principal_state',
  'principal_zip',
  'principal_country',
  'mailing_addr1',
  'mailing_addr2',
  'mailing_city',
  'mailing_state',
  'mailing_zip',
  'mailing_country',
  'annual_reports',
  'agent_name',
  'agent_addr',
  'agent_city',
  'agent_state',
  'agent_zip',
] as const;

type Record_ = Record<string, unknown>;

interface Change {
  field: string;
  old: unknown;
  new: unknown;
}

export interface NewEvent {
  workspace: string;
  type: EventType;
  document: string;
  searchId: string | null;
  data: Record_;
}

const TOUCHED = 'mon_touched';

/** The watched entities' records among the touched ones, as JSON, with their officers in slot order. */
async function watchedRecords(client: pg.PoolClient): Promise<Map<string, Record_>> {
  const { rows } = await client.query<{ document_number: string; rec: Record_ }>(`
    SELECT e.document_number, to_jsonb(r) AS rec
    FROM registry.entities e
    CROSS JOIN LATERAL (
      SELECT ${WATCHED_FIELDS.map((f) => `e.${f}`).join(', ')},
        coalesce((SELECT jsonb_agg(jsonb_build_object('title', o.title, 'name', o.name) ORDER BY o.slot)
                  FROM registry.officers o WHERE o.document_number = e.document_number), '[]') AS officers
    ) r
    WHERE e.document_number IN (SELECT document_number FROM ${TOUCHED} WHERE watched)`);
  return new Map(rows.map((r) => [r.document_number, r.rec]));
}

function changes(before: Record_, after: Record_): Change[] {
  const out: Change[] = [];
  for (const field of [...WATCHED_FIELDS, 'officers']) {
    if (JSON.stringify(before[field]) !== JSON.stringify(after[field]))
      out.push({ field, old: before[field] ?? null, new: after[field] ?? null });
  }
  return out;
}

/** Writes the events and one pending delivery per subscribed endpoint of their workspace. */
export async function writeEvents(client: pg.PoolClient, events: NewEvent[], file: string): Promise<number> {
  if (events.length === 0) return 0;
  const rows = events.map((e) => {
    const id = eventId();
    return { id, ...e, payload: { id, type: e.type, file, data: e.data } };
  });
  await client.query(
    `WITH written AS (
       INSERT INTO monitoring_events (id, workspace_id, type, document_number, saved_search_id, payload, created_at)
       SELECT r.id, r.workspace, r.type, r.document, r.search, r.payload || jsonb_build_object('created_at', now()),
              now()
       FROM jsonb_to_recordset($1::jsonb) AS r(id text, workspace text, type text, document text, search text,
                                               payload jsonb)
       RETURNING id, workspace_id, type)
     INSERT INTO webhook_deliveries (event_id, endpoint_id)
     SELECT w.id, p.id FROM written w
     JOIN webhook_endpoints p ON p.workspace_id = w.workspace_id AND w.type = ANY(p.event_types)`,
    [JSON.stringify(rows.map((r) => ({ ...r, search: r.searchId })))],
  );
  return rows.length;
}

/** The monitoring of one corporate change set: `before` ahead of applying it, `after` once applied. */
export interface CorporateWatch {
  /** The touched entities the saved searches judge. */
  readonly judged: number;
  after(client: pg.PoolClient, file: string): Promise<number>;
}

/**
 * Reads what the change set in `chg_entities` is about to change, or returns null when no workspace
 * monitors anything. Call before applying the set, in its transaction.
 */
export async function beforeCorporateChanges(client: pg.PoolClient): Promise<CorporateWatch | null> {
  const searches = await monitoredSearches(client);
  if (!searches) return null;
  await createTouched(client, 'SELECT DISTINCT document_number FROM chg_entities', judgedChanges(searches));
  return readBefore(client, searches);
}

/** The saved searches of every workspace, or null when no workspace watches an entity or saves a search. */
export async function monitoredSearches(client: pg.PoolClient): Promise<SavedSearch[] | null> {
  const { rows: searches } = await client.query<SavedSearch>(
    'SELECT id, workspace_id, name, params FROM saved_searches ORDER BY id',
  );
  const { rows: any } = await client.query('SELECT 1 FROM watched_entities LIMIT 1');
  return searches.length === 0 && any.length === 0 ? null : searches;
}

/**
 * The touched set, from `documents` (a query of distinct `document_number`s), for the rest of the
 * transaction; returns its size. A daily file touches its records, a snapshot what it changes. Saved
 * searches judge those of `judged` (a query of `document_number`s), or all of them when it is undefined.
 */
export async function createTouched(client: pg.PoolClient, documents: string, judged?: string | null): Promise<number> {
  const judging = judged === undefined ? 'true' : judged === null ? 'false' : `c.document_number IN (${judged})`;
  const { rowCount } = await client.query(`
    CREATE TEMP TABLE ${TOUCHED} ON COMMIT DROP AS
    SELECT c.document_number,
           EXISTS (SELECT 1 FROM watched_entities w WHERE w.document_number = c.document_number) AS watched,
           NOT EXISTS (SELECT 1 FROM registry.entities e WHERE e.document_number = c.document_number) AS created,
           ${judging} AS judged
    FROM (${documents}) c`);
  // Its size known, the touched rows are read through the registry's keys, not by a scan of it.
  await client.query(`ANALYZE ${TOUCHED}`);
  return rowCount ?? 0;
}

/** Reads the touched set's watched records and saved-search matches as they are before the change. */
export async function readBefore(client: pg.PoolClient, searches: SavedSearch[]): Promise<CorporateWatch> {
  const before = await watchedRecords(client);
  // A new entity matched nothing before.
  const existing = `SELECT document_number FROM ${TOUCHED} WHERE judged AND NOT created`;
  await copyTouchedOfficers(client, searches, existing);
  const matchedBefore = await matchesOfTouched(client, await compileSearches(client, searches), existing);
  const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${TOUCHED} WHERE judged`);
  return {
    judged: rows[0]!.n,
    async after(c, file) {
      const after = await watchedRecords(c);
      const judged = `SELECT document_number FROM ${TOUCHED} WHERE judged`;
      await copyTouchedOfficers(c, searches, judged);
      const compiled = await compileSearches(c, searches);
      const matchedAfter = await matchesOfTouched(c, compiled, judged);
      const events: NewEvent[] = [];
      const { rows: watchers } = await c.query<{ workspace_id: string; document_number: string }>(
        `SELECT w.workspace_id, w.document_number FROM watched_entities w
         WHERE w.document_number IN (SELECT document_number FROM ${TOUCHED} WHERE watched)
         ORDER BY w.document_number, w.workspace_id`,
      );
      for (const w of watchers) {
        const was = before.get(w.document_number);
        const now = after.get(w.document_number);
        if (!was || !now) continue;
        const list = changes(was, now);
        if (list.length) {
          events.push({
            workspace: w.workspace_id,
            type: 'entity.updated',
            document: w.document_number,
            searchId: null,
            data: { document_number: w.document_number, name: now.name, changes: list },
          });
        }
      }
      const { rows: created } = await c.query<{ document_number: string }>(
        `SELECT document_number FROM ${TOUCHED} WHERE created`,
      );
      const isNew = new Set(created.map((r) => r.document_number));
      const announced = new Set<string>();
      for (const search of compiled.all) {
        const earlier = matchedBefore.get(search.id)!;
        for (const doc of [...matchedAfter.get(search.id)!].sort()) {
          if (earlier.has(doc)) continue;
          const data = { document_number: doc, saved_search: { id: search.id, name: search.name } };
          // A new document number is announced once per workspace, whichever of its searches it matches.
          const key = `${search.workspace_id} ${doc}`;
          if (isNew.has(doc) && !announced.has(key)) {
            announced.add(key);
            events.push({
              workspace: search.workspace_id,
              type: 'entity.created',
              document: doc,
              searchId: null,
              data,
            });
          }
          events.push({
            workspace: search.workspace_id,
            type: 'saved_search.match',
            document: doc,
            searchId: search.id,
            data,
          });
        }
      }
      return writeEvents(c, events, file);
    },
  };
}

/** New filing events (in `chg_events`, not yet applied) of watched entities, as `entity.updated`. */
export async function filingEventsOfWatched(client: pg.PoolClient, file: string): Promise<number> {
  const incoming = `SELECT DISTINCT ON (document_number, sequence) * FROM chg_events
                    ORDER BY document_number, sequence, ord DESC`;
  return writeEvents(client, await newFilingEvents(client, incoming), file);
}

/** The filing events of watched entities in `incoming` (a query of events rows) not yet in the registry. */
export async function newFilingEvents(client: pg.PoolClient, incoming: string): Promise<NewEvent[]> {
  const { rows } = await client.query<{ workspace_id: string; document_number: string; filing: Record_ }>(`
    SELECT w.workspace_id, c.document_number,
           jsonb_build_object('sequence', c.sequence, 'code', c.code, 'description', c.description,
                              'effective_date', c.effective_date, 'filed_date', c.filed_date) AS filing
    FROM (${incoming}) c
    JOIN watched_entities w ON w.document_number = c.document_number
    WHERE NOT EXISTS (SELECT 1 FROM registry.events e
                      WHERE e.document_number = c.document_number AND e.sequence = c.sequence)
    ORDER BY c.document_number, w.workspace_id, c.sequence`);
  const grouped = new Map<string, NewEvent>();
  for (const r of rows) {
    const key = `${r.workspace_id} ${r.document_number}`;
    const e = grouped.get(key) ?? {
      workspace: r.workspace_id,
      type: 'entity.updated' as const,
      document: r.document_number,
      searchId: null,
      data: { document_number: r.document_number, changes: [] as Change[] },
    };
    (e.data.changes as Change[]).push({ field: 'filing_events', old: null, new: r.filing });
    grouped.set(key, e);
  }
  return [...grouped.values()];
}
