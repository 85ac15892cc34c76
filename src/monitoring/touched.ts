// What a change did to the entities it touched (docs/webhooks.md, "Events"): `entity.updated` for the
// watched ones whose record changed, `entity.created` and `saved_search.match` for those that newly match
// a saved search. Each is judged on its rows before the change and after it. A daily file is judged once
// applied, against the rows it replaced (`old_entities`, `old_officers`, kept by the importer): the
// importer has just read and written those rows, so nothing is read cold twice. A snapshot is judged on
// the live tables before its swap and again after it (snapshot.ts).
import type pg from 'pg';
import { shownCountry, shownPrincipalState } from '../search/index.js';
import {
  compileSearches,
  copyTouchedOfficers,
  judgedChanges,
  matchesOfTouched,
  type CompiledSearches,
  type SavedSearch,
} from './matches.js';
import { WATCHED_FIELDS, monitoredSearches, writeEvents, type Change, type NewEvent, type Record_ } from './outbox.js';

const TOUCHED = 'mon_touched';

/** Where the touched entities' rows before the change are read. */
export interface Before {
  entities: string;
  officers: string;
  /** The change is applied already: its word dictionaries serve both judgments, compiled once. */
  applied: boolean;
}

/** The live tables, read before the change is applied (a snapshot's swap). */
export const LIVE: Before = { entities: 'registry.entities', officers: 'registry.officers', applied: false };

/** The rows an applied change set replaced (src/registry/import/derived.ts, rememberCorporateDerived). */
const REPLACED: Before = { entities: 'old_entities', officers: 'old_officers', applied: true };

/** A change being judged (startJudgment). */
export interface Judgment {
  /** The touched entities the saved searches judge. */
  readonly judged: number;
  after(client: pg.PoolClient, file: string): Promise<number>;
}

/**
 * The events of a daily corporate change set once `applyCorporateChanges` has applied it, in its
 * transaction, or null when no workspace monitors anything.
 */
export async function corporateChangeEvents(
  client: pg.PoolClient,
  file: string,
): Promise<{ judged: number; events: number } | null> {
  const searches = await monitoredSearches(client);
  if (!searches) return null;
  await createTouched(client, 'SELECT document_number FROM chg_entities', REPLACED, judgedChanges(searches));
  const judgment = await startJudgment(client, searches, REPLACED);
  return { judged: judgment.judged, events: await judgment.after(client, file) };
}

/**
 * The touched set, from `documents` (a query of distinct `document_number`s), for the rest of the
 * transaction; returns its size. A daily file touches its records, a snapshot what it changes. Saved
 * searches judge those of `judged` (a query of `document_number`s), or all of them when it is undefined.
 */
export async function createTouched(
  client: pg.PoolClient,
  documents: string,
  before: Before,
  judged?: string | null,
): Promise<number> {
  const judging = judged === undefined ? 'true' : judged === null ? 'false' : `c.document_number IN (${judged})`;
  const { rowCount } = await client.query(`
    CREATE TEMP TABLE ${TOUCHED} ON COMMIT DROP AS
    SELECT c.document_number,
           EXISTS (SELECT 1 FROM watched_entities w WHERE w.document_number = c.document_number) AS watched,
           NOT EXISTS (SELECT 1 FROM ${before.entities} e WHERE e.document_number = c.document_number) AS created,
           ${judging} AS judged
    FROM (${documents}) c`);
  // Its size known, the touched rows are read through the registry's keys, not by a scan of it.
  await client.query(`ANALYZE ${TOUCHED}`);
  return rowCount ?? 0;
}

/** The watched touched entities' records in `from`, as JSON, with their officers in slot order. */
async function watchedRecords(client: pg.PoolClient, from: Before): Promise<Map<string, Record_>> {
  const { rows } = await client.query<{ document_number: string; rec: Record_ }>(`
    SELECT e.document_number, to_jsonb(r) AS rec
    FROM ${from.entities} e
    CROSS JOIN LATERAL (
      SELECT ${WATCHED_FIELDS.map((f) => `e.${f}`).join(', ')},
        coalesce((SELECT jsonb_agg(jsonb_build_object('title', o.title, 'name', o.name) ORDER BY o.slot)
                  FROM ${from.officers} o WHERE o.document_number = e.document_number), '[]') AS officers
    ) r
    WHERE e.document_number IN (SELECT document_number FROM ${TOUCHED} WHERE watched)`);
  return new Map(rows.map((r) => [r.document_number, r.rec]));
}

/**
 * A record's fields as the entity's detail shows them: a blank principal state or country filled as the contract
 * says, so that a file blanking what was filled in reports no change the API does not show.
 */
function shown(r: Record_): Record_ {
  const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
  const state = shownPrincipalState(text(r.principal_state), text(r.principal_addr1), text(r.principal_city));
  return {
    ...r,
    principal_state: state,
    principal_country: shownCountry(text(r.principal_country), state),
    mailing_country: shownCountry(text(r.mailing_country), text(r.mailing_state)),
  };
}

function changes(was: Record_, is: Record_): Change[] {
  const [before, after] = [shown(was), shown(is)];
  const out: Change[] = [];
  for (const field of [...WATCHED_FIELDS, 'officers']) {
    if (JSON.stringify(before[field]) !== JSON.stringify(after[field]))
      out.push({ field, old: before[field] ?? null, new: after[field] ?? null });
  }
  return out;
}

/** `search id -> document numbers` of the judged touched entities in `from` that match it. */
async function matchesIn(
  client: pg.PoolClient,
  searches: SavedSearch[],
  compiled: CompiledSearches,
  from: Before,
  documents: string,
): Promise<Map<string, Set<string>>> {
  await copyTouchedOfficers(client, searches, from.officers, documents);
  return matchesOfTouched(client, compiled, from.entities, documents);
}

/** As matchesIn, among the entities of `documents` found in `found` (a search's matches, by search id). */
async function matchesAmong(
  client: pg.PoolClient,
  searches: SavedSearch[],
  compiled: CompiledSearches,
  from: Before,
  documents: string,
  found: Map<string, Set<string>>,
): Promise<Map<string, Set<string>>> {
  const among = [...new Set([...found.values()].flatMap((docs) => [...docs]))];
  await client.query(`CREATE TEMP TABLE mon_among ON COMMIT DROP AS SELECT unnest($1::text[]) AS document_number`, [
    among,
  ]);
  return matchesIn(client, searches, compiled, from, `${documents} AND document_number IN (SELECT * FROM mon_among)`);
}

/**
 * Starts judging a change: reads the touched set's watched records as they were (from `from`) and, on live
 * tables not yet changed, its saved-search matches. `after` judges the applied change and writes the events.
 */
export async function startJudgment(client: pg.PoolClient, searches: SavedSearch[], from: Before): Promise<Judgment> {
  const before = await watchedRecords(client, from);
  const compiled = await compileSearches(client, searches);
  // A new entity matched nothing before.
  const existing = `SELECT document_number FROM ${TOUCHED} WHERE judged AND NOT created`;
  // The live rows are judged before the change. The replaced rows are kept: only those that match after
  // it are judged (below), since only they can make a new match.
  const early = from.applied ? null : await matchesIn(client, searches, compiled, from, existing);
  const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${TOUCHED} WHERE judged`);
  return {
    judged: rows[0]!.n,
    async after(c, file) {
      const after = await watchedRecords(c, LIVE);
      const now = from.applied ? compiled : await compileSearches(c, searches);
      const judged = `SELECT document_number FROM ${TOUCHED} WHERE judged`;
      const matchedAfter = await matchesIn(c, searches, now, LIVE, judged);
      const matchedBefore = early ?? (await matchesAmong(c, searches, compiled, from, existing, matchedAfter));
      const { rows: watchers } = await c.query<{ workspace_id: string; document_number: string }>(
        `SELECT w.workspace_id, w.document_number FROM watched_entities w
         WHERE w.document_number IN (SELECT document_number FROM ${TOUCHED} WHERE watched)
         ORDER BY w.document_number, w.workspace_id`,
      );
      const events: NewEvent[] = [];
      for (const w of watchers) {
        const was = before.get(w.document_number);
        const is = after.get(w.document_number);
        const list = was && is ? changes(was, is) : [];
        if (list.length) {
          events.push({
            workspace: w.workspace_id,
            type: 'entity.updated',
            document: w.document_number,
            searchId: null,
            data: { document_number: w.document_number, name: is!.name, changes: list },
          });
        }
      }
      const { rows: created } = await c.query<{ document_number: string }>(
        `SELECT document_number FROM ${TOUCHED} WHERE created`,
      );
      events.push(...newMatches(now, matchedBefore, matchedAfter, new Set(created.map((r) => r.document_number))));
      return writeEvents(c, events, file);
    },
  };
}

/**
 * `saved_search.match` for each entity matching a search after the change and not before, and
 * `entity.created` once per workspace for a new document number among them.
 */
function newMatches(
  compiled: CompiledSearches,
  before: Map<string, Set<string>>,
  after: Map<string, Set<string>>,
  isNew: Set<string>,
): NewEvent[] {
  const events: NewEvent[] = [];
  const announced = new Set<string>();
  for (const search of compiled.all) {
    const earlier = before.get(search.id)!;
    for (const doc of [...after.get(search.id)!].sort()) {
      if (earlier.has(doc)) continue;
      const data = { document_number: doc, saved_search: { id: search.id, name: search.name } };
      // A new document number is announced once per workspace, whichever of its searches it matches.
      const key = `${search.workspace_id} ${doc}`;
      if (isNew.has(doc) && !announced.has(key)) {
        announced.add(key);
        events.push({ workspace: search.workspace_id, type: 'entity.created', document: doc, searchId: null, data });
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
  return events;
}
