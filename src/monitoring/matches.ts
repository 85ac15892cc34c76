// Which of the entities an import touched match a saved search: the entity search's own match predicate
// (src/search/entities/predicates.ts), evaluated for every search in one pass over the rows the change could
// move in or out of one (judgedChanges), before and again after the change, so its cost follows the
// file's changes, not the dataset (docs/webhooks.md, "Events").
import type pg from 'pg';
import { entityPredicates, type EntitySearch } from '../search/index.js';

export interface SavedSearch {
  id: string;
  workspace_id: string;
  name: string;
  params: Omit<EntitySearch, 'limit' | 'offset'>;
}

/**
 * The entity columns a saved search's predicate reads (matchConditions, src/search/entities/filters.ts; a
 * test holds the two together). An entity whose columns and officers' names a change leaves as they were
 * matches the same searches after it as before, so it is not judged.
 */
export const SEARCHED_FIELDS = [
  'name_core',
  'name_words',
  'status',
  'entity_type',
  'filing_date',
  'principal_city',
  'principal_state',
  'agent_words',
] as const;

const naming = (searches: SavedSearch[]): boolean => searches.some((s) => s.params.officer_name !== undefined);

/**
 * The document numbers of an applied daily change set (`chg_entities`, `chg_officers`) that could enter or
 * leave a saved search: new ones, those whose searched columns differ from the row it replaced
 * (`old_entities`), and, when a search names an officer, those whose officers' names differ from the
 * replaced ones (`old_officers`). Null without searches.
 */
export function judgedChanges(searches: SavedSearch[]): string | null {
  if (searches.length === 0) return null;
  const fields = (t: string): string => SEARCHED_FIELDS.map((f) => `${t}.${f}`).join(', ');
  const entities = `
    SELECT c.document_number FROM chg_entities c
    LEFT JOIN old_entities e ON e.document_number = c.document_number
    WHERE e.document_number IS NULL OR (${fields('e')}) IS DISTINCT FROM (${fields('c')})`;
  if (!naming(searches)) return entities;
  return `${entities}
    UNION
    SELECT coalesce(a.document_number, b.document_number) FROM
      old_officers a
    FULL JOIN chg_officers b ON b.document_number = a.document_number AND b.slot = a.slot
    WHERE a.document_number IS NULL OR b.document_number IS NULL OR a.name_words IS DISTINCT FROM b.name_words`;
}

/**
 * The judged entities' officers as they are now: an officer name is looked up among these few rows (a
 * common surname's rows in the whole registry would cost a second and more each).
 */
const TOUCHED_OFFICERS = 'mon_officers';

/**
 * Copies the officers in `officers` (a table) of the entities in `documents` (a query of
 * `document_number`s) into TOUCHED_OFFICERS, when some search names an officer (the table is then empty).
 */
export async function copyTouchedOfficers(
  client: pg.PoolClient,
  searches: SavedSearch[],
  officers: string,
  documents: string,
): Promise<void> {
  await client.query(
    `CREATE TEMP TABLE IF NOT EXISTS ${TOUCHED_OFFICERS} ON COMMIT DROP
     AS SELECT * FROM registry.officers WITH NO DATA`,
  );
  await client.query(`TRUNCATE ${TOUCHED_OFFICERS}`);
  if (!naming(searches)) return;
  await client.query(
    `INSERT INTO ${TOUCHED_OFFICERS} SELECT o.* FROM ${officers} o WHERE o.document_number IN (${documents})`,
  );
}

/** Predicates in one statement: bounds its parameters (a few a search) and the statement's size. */
const SEARCHES_PER_STATEMENT = 200;

/** One statement's predicates: `conditions[i]` is shared by every search of `searches[i]` (equal params). */
interface Batch {
  searches: SavedSearch[][];
  conditions: string[];
  params: unknown[];
}

export interface CompiledSearches {
  all: SavedSearch[];
  batches: Batch[];
}

/**
 * The saved searches' predicates, each distinct set of params compiled once, on the import's connection:
 * compiled again once the change is applied, a name's word expansions include the words the file brings.
 */
export async function compileSearches(client: pg.PoolClient, searches: SavedSearch[]): Promise<CompiledSearches> {
  const alike = new Map<string, SavedSearch[]>();
  for (const s of searches) {
    const key = JSON.stringify(s.params);
    alike.set(key, [...(alike.get(key) ?? []), s]);
  }
  const groups = [...alike.values()];
  const compiler = entityPredicates(client, TOUCHED_OFFICERS);
  const batches: Batch[] = [];
  for (let i = 0; i < groups.length; i += SEARCHES_PER_STATEMENT) {
    const batch = groups.slice(i, i + SEARCHES_PER_STATEMENT);
    const { conditions, params } = await compiler.compile(
      batch.map((group) => ({ ...group[0]!.params, limit: 1, offset: 0 })),
    );
    batches.push({ searches: batch, conditions, params });
  }
  return { all: searches, batches };
}

/**
 * `search id -> document numbers` among the rows of `entities` (a table) of the entities in `documents` (a
 * query of `document_number`s) that match it, read on the import's connection (its own uncommitted rows):
 * every predicate in one pass over those rows.
 */
export async function matchesOfTouched(
  client: pg.PoolClient,
  compiled: CompiledSearches,
  entities: string,
  documents: string,
): Promise<Map<string, Set<string>>> {
  const found = new Map(compiled.all.map((s) => [s.id, new Set<string>()]));
  for (const batch of compiled.batches) {
    // Only the rows matching something, each with the positions (from 1) of the predicates it meets.
    const predicates = batch.conditions.map((c) => `coalesce(${c}, false)`).join(', ');
    const { rows } = await client.query<{ document_number: string; hits: number[] }>(
      // The judged rows first: evaluated in the scan, the predicates would be tested on every entity.
      `WITH e AS MATERIALIZED (
         SELECT * FROM ${entities} WHERE document_number IN (${documents}))
       SELECT document_number, hits FROM (
         SELECT e.document_number, array_positions(ARRAY[${predicates}], true) AS hits FROM e) m
       WHERE cardinality(hits) > 0`,
      batch.params,
    );
    for (const r of rows) {
      for (const position of r.hits)
        for (const s of batch.searches[position - 1]!) found.get(s.id)!.add(r.document_number);
    }
  }
  return found;
}
