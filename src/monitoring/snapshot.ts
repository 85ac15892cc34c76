// The events of a quarterly snapshot (docs/webhooks.md, "Quarterly snapshots"): what the staged tables
// change against the live ones, reported like a daily file's changes (touched.ts) in the swap's
// transaction. Nothing is compared when nobody monitors anything, nor on a first load (no live rows).
import type pg from 'pg';
import type { Step, SwapObservation } from '../registry/import/observer.js';
import { WATCHED_FIELDS, monitoredSearches, newFilingEvents, writeEvents } from './outbox.js';
import { LIVE, createTouched, startJudgment } from './touched.js';

const isEmpty = async (client: pg.PoolClient, table: string): Promise<boolean> =>
  (await client.query(`SELECT 1 FROM ${table} LIMIT 1`)).rowCount === 0;

/**
 * The document numbers of `next` (the staged schema) that are new, whose watched fields differ from the
 * live record, or whose officers differ (added, removed or changed slots), in one pass over both sides.
 */
export function differingDocuments(next: string): string {
  const fields = (t: string): string => WATCHED_FIELDS.map((f) => `${t}.${f}`).join(', ');
  return `
    SELECT n.document_number FROM ${next}.entities n
    LEFT JOIN registry.entities l ON l.document_number = n.document_number
    WHERE l.document_number IS NULL OR (${fields('l')}) IS DISTINCT FROM (${fields('n')})
    UNION
    SELECT n.document_number FROM ${next}.entities n
    JOIN (SELECT coalesce(a.document_number, b.document_number) AS document_number
          FROM registry.officers a
          FULL JOIN ${next}.officers b ON b.document_number = a.document_number AND b.slot = a.slot
          WHERE a.document_number IS NULL OR b.document_number IS NULL
             OR (a.title, a.name) IS DISTINCT FROM (b.title, b.name)) o
      ON o.document_number = n.document_number`;
}

/**
 * Before a corporate snapshot's swap: the entities it creates or changes become the touched set, and
 * their watched records and saved-search matches are read on the live tables. An entity absent from the
 * snapshot is left out: it reports nothing, and its watch stays.
 */
export async function watchCorporateSnapshot(
  client: pg.PoolClient,
  next: string,
  step: Step,
): Promise<SwapObservation | null> {
  const searches = await monitoredSearches(client);
  if (!searches || (await isEmpty(client, 'registry.entities'))) return null;
  step(`monitoring diff: ${await createTouched(client, differingDocuments(next), LIVE)} differ`);
  return startJudgment(client, searches, LIVE);
}

/** Before an events snapshot's swap: the filing events of watched entities it adds to the live table. */
export async function watchEventSnapshot(
  client: pg.PoolClient,
  next: string,
  step: Step,
): Promise<SwapObservation | null> {
  const { rowCount } = await client.query('SELECT 1 FROM watched_entities LIMIT 1');
  if (rowCount === 0 || (await isEmpty(client, 'registry.events'))) return null;
  const events = await newFilingEvents(client, `SELECT * FROM ${next}.events`);
  step(`monitoring diff: ${events.length} differ`);
  return { after: (c, file) => writeEvents(c, events, file) };
}
