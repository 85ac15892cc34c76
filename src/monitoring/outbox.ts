// The events of one import, written in its transaction (the outbox, docs/webhooks.md "Events"): the
// record changes and new matches of the entities it touched (touched.ts), and new filing events of
// watched entities. Only when some workspace watches or saves a search: an import nobody monitors reads
// two empty tables more.
import type pg from 'pg';
import { ENTITY_FIELDS } from '../registry/feed/fields.js';
import type { SavedSearch } from './matches.js';
import { eventId, type EventType } from './events.js';

/** The record fields an `entity.updated` reports (officers are compared as one list): the change feed's. */
export const WATCHED_FIELDS = ENTITY_FIELDS;

export type Record_ = Record<string, unknown>;

export interface Change {
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

/** An event as stored: `payload` is the body its deliveries send, less the `sequence` and `created_at` added here. */
export interface EventRow {
  id: string;
  workspace: string;
  type: EventType;
  document: string | null;
  searchId: string | null;
  payload: Record_;
}

/**
 * Appends events, numbered in their workspace's sequence in the order given, with one pending delivery each to
 * `endpoint`, or to every endpoint of the workspace subscribed to the event's type. The counter rows are taken in
 * workspace order (no deadlock between two writers) and held to the commit, so a workspace's numbers commit in order.
 */
export async function appendEvents(client: pg.ClientBase, events: EventRow[], endpoint?: string): Promise<void> {
  if (events.length === 0) return;
  await client.query(
    `WITH r AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb)
         AS r(ord int, id text, workspace text, type text, document text, search text, payload jsonb)),
     counts AS (SELECT workspace, count(*) AS n FROM r GROUP BY workspace),
     bumped AS (
       INSERT INTO monitoring_sequences AS s (workspace_id, last_sequence)
       SELECT workspace, n FROM counts ORDER BY workspace
       ON CONFLICT (workspace_id) DO UPDATE SET last_sequence = s.last_sequence + excluded.last_sequence
       RETURNING workspace_id, last_sequence),
     numbered AS (
       SELECT r.*, b.last_sequence - c.n + row_number() OVER (PARTITION BY r.workspace ORDER BY r.ord) AS seq
       FROM r JOIN counts c USING (workspace) JOIN bumped b ON b.workspace_id = r.workspace),
     written AS (
       INSERT INTO monitoring_events (id, workspace_id, type, document_number, saved_search_id, sequence, payload,
                                      created_at)
       SELECT id, workspace, type, document, search, seq,
              payload || jsonb_build_object('sequence', seq, 'created_at', now()), now()
       FROM numbered
       RETURNING id, workspace_id, type)
     INSERT INTO webhook_deliveries (event_id, endpoint_id)
     SELECT w.id, p.id FROM written w
     JOIN webhook_endpoints p ON p.workspace_id = w.workspace_id
       AND CASE WHEN $2::text IS NULL THEN w.type = ANY(p.event_types) ELSE p.id = $2 END`,
    [JSON.stringify(events.map((e, ord) => ({ ord, ...e, search: e.searchId }))), endpoint ?? null],
  );
}

/** Writes the events of an import and their pending deliveries; returns how many. */
export async function writeEvents(client: pg.PoolClient, events: NewEvent[], file: string): Promise<number> {
  await appendEvents(
    client,
    events.map((e) => {
      const id = eventId();
      const { workspace, type, document, searchId } = e;
      return { id, workspace, type, document, searchId, payload: { id, type, file, data: e.data } };
    }),
  );
  return events.length;
}

/** The saved searches of every workspace, or null when no workspace watches an entity or saves a search. */
export async function monitoredSearches(client: pg.PoolClient): Promise<SavedSearch[] | null> {
  const { rows: searches } = await client.query<SavedSearch>(
    'SELECT id, workspace_id, name, params FROM saved_searches ORDER BY id',
  );
  const { rows: any } = await client.query('SELECT 1 FROM watched_entities LIMIT 1');
  return searches.length === 0 && any.length === 0 ? null : searches;
}

/** New filing events (in `chg_events`, not yet applied) of watched entities, as `entity.updated`. */
export async function filingEventsOfWatched(client: pg.PoolClient, file: string): Promise<number> {
  const incoming = `SELECT DISTINCT ON (document_number, sequence) * FROM chg_events
                    ORDER BY document_number, sequence, ord DESC`;
  return writeEvents(client, await newFilingEvents(client, incoming), file);
}

/** The filing events of watched entities in `incoming` (a query of events rows) not yet in the registry. */
export async function newFilingEvents(client: pg.PoolClient, incoming: string): Promise<NewEvent[]> {
  const { rows } = await client.query<{
    workspace_id: string;
    document_number: string;
    name: string;
    filing: Record_;
  }>(`
    -- The watched entities' events first: only theirs are looked up in the registry's (cold) events.
    WITH c AS MATERIALIZED (
      SELECT i.* FROM (${incoming}) i WHERE i.document_number IN (SELECT document_number FROM watched_entities))
    SELECT w.workspace_id, c.document_number,
           (SELECT e.name FROM registry.entities e WHERE e.document_number = c.document_number) AS name,
           jsonb_build_object('sequence', c.sequence, 'code', c.code, 'description', c.description,
                              'effective_date', c.effective_date, 'filed_date', c.filed_date) AS filing
    FROM c
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
      // Its name as the registry holds it now, as every entity.updated carries.
      data: { document_number: r.document_number, name: r.name, changes: [] as Change[] },
    };
    (e.data.changes as Change[]).push({ field: 'filing_events', old: null, new: r.filing });
    grouped.set(key, e);
  }
  return [...grouped.values()];
}

/** One event of a workspace's own work (a match job's or an export's end), for its endpoints subscribed to `type`. */
export async function appendWorkEvent(
  client: pg.ClientBase,
  workspace: string,
  type: 'match_job.completed' | 'export.completed',
  data: Record<string, unknown>,
): Promise<void> {
  const id = eventId();
  await appendEvents(client, [{ id, workspace, type, document: null, searchId: null, payload: { id, type, data } }]);
}
