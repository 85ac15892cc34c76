// Tables derived from the loaded records: registered-agent groups, the word dictionaries used for
// fuzzy expansion, and each entity's last inactivating event. Built whole after a snapshot load and
// refreshed for the touched rows after a set of changes.
import type pg from 'pg';
import { KNOWN_EVENT_CODES, inactivationOf } from '../codes.js';

export type Schema = 'registry' | 'registry_next';

/** Each dictionary: which table holds it, and which array column of which table it counts. */
const DICTIONARIES = [
  { table: 'entity_words', source: 'entities', column: 'name_words' },
  { table: 'agent_words', source: 'entities', column: 'agent_words' },
  { table: 'address_words', source: 'entities', column: 'address_words' },
  { table: 'officer_words', source: 'officers', column: 'name_words' },
] as const;

/** Agent groups for the given (agent_key, zip5) pairs, or all of them. */
function agentGroupsSql(s: Schema, where: string): string {
  return `
    INSERT INTO ${s}.agents (agent_key, zip5, name, city, state, entity_count, name_sorted, name_words)
    SELECT e.agent_key, coalesce(e.agent_zip5, ''),
           mode() WITHIN GROUP (ORDER BY e.agent_name),
           mode() WITHIN GROUP (ORDER BY e.agent_city),
           mode() WITHIN GROUP (ORDER BY e.agent_state),
           count(*),
           min(array_to_string(ARRAY(SELECT unnest(e.agent_words) ORDER BY 1), ' ')),
           min(e.agent_words)
    FROM ${s}.entities e
    WHERE e.agent_key IS NOT NULL ${where}
    GROUP BY e.agent_key, coalesce(e.agent_zip5, '')`;
}

/** Inactivating event codes with their letters and labels, as query parameters. */
function inactivationParams(): [string[], string[], string[]] {
  const rows = KNOWN_EVENT_CODES.flatMap((code) => {
    const i = inactivationOf(code);
    return i ? [[code, i.letter, i.label] as const] : [];
  });
  return [rows.map((r) => r[0]), rows.map((r) => r[1]), rows.map((r) => r[2])];
}

function inactivationsSql(s: Schema, where: string): string {
  return `
    INSERT INTO ${s}.inactivations (document_number, letter, label, code, filed_date)
    SELECT DISTINCT ON (ev.document_number) ev.document_number, c.letter, c.label, ev.code, ev.filed_date
    FROM ${s}.events ev
    JOIN unnest($1::text[], $2::text[], $3::text[]) AS c(code, letter, label) ON c.code = ev.code
    WHERE true ${where}
    ORDER BY ev.document_number, ev.filed_date DESC NULLS LAST, ev.sequence DESC`;
}

/** Builds every corporate-derived table of a freshly loaded schema. */
export async function buildCorporateDerived(client: pg.PoolClient, s: Schema): Promise<void> {
  await client.query(agentGroupsSql(s, ''));
  for (const d of DICTIONARIES) {
    await client.query(
      `INSERT INTO ${s}.${d.table} (word, n) SELECT w, count(*) FROM ${s}.${d.source}, unnest(${d.column}) AS w GROUP BY w`,
    );
  }
}

export async function buildEventDerived(client: pg.PoolClient, s: Schema): Promise<void> {
  await client.query(inactivationsSql(s, ''), inactivationParams());
}

/**
 * Before a change set replaces rows: remembers the agent groups and dictionary words the old rows
 * contributed (temp tables `old_agents`, `old_words_*`), so `refreshCorporateDerived` can recount them.
 */
export async function rememberCorporateDerived(client: pg.PoolClient, s: Schema): Promise<void> {
  await client.query(`
    CREATE TEMP TABLE old_agents ON COMMIT DROP AS
    SELECT e.agent_key, coalesce(e.agent_zip5, '') AS zip5 FROM ${s}.entities e
    JOIN chg_entities c ON c.document_number = e.document_number WHERE e.agent_key IS NOT NULL`);
  for (const d of DICTIONARIES) {
    const old = d.source === 'entities' ? `${s}.entities` : `${s}.officers`;
    await client.query(`
      CREATE TEMP TABLE old_${d.table} ON COMMIT DROP AS
      SELECT w FROM ${old} t JOIN chg_entities c ON c.document_number = t.document_number, unnest(t.${d.column}) AS w`);
  }
}

/** After a change set: recounts the agent groups it touched and moves dictionary counts by the difference. */
export async function refreshCorporateDerived(client: pg.PoolClient, s: Schema): Promise<void> {
  await client.query(`
    CREATE TEMP TABLE touched_agents ON COMMIT DROP AS
    SELECT agent_key, zip5 FROM old_agents
    UNION SELECT agent_key, coalesce(agent_zip5, '') FROM chg_entities WHERE agent_key IS NOT NULL`);
  await client.query(`DELETE FROM ${s}.agents a USING touched_agents t WHERE a.agent_key = t.agent_key AND a.zip5 = t.zip5`);
  await client.query(
    agentGroupsSql(s, `AND (e.agent_key, coalesce(e.agent_zip5, '')) IN (SELECT agent_key, zip5 FROM touched_agents)`),
  );
  for (const d of DICTIONARIES) {
    const fresh = d.source === 'entities' ? 'chg_entities' : 'chg_officers';
    await client.query(`
      INSERT INTO ${s}.${d.table} AS dict (word, n)
      SELECT w, sum(delta) FROM (
        SELECT w, 1 AS delta FROM ${fresh}, unnest(${d.column}) AS w
        UNION ALL SELECT w, -1 FROM old_${d.table}
      ) moves GROUP BY w HAVING sum(delta) <> 0
      ON CONFLICT (word) DO UPDATE SET n = dict.n + excluded.n`);
  }
}

/** Recomputes the inactivation of every entity with a row in `chg_events`. */
export async function refreshEventDerived(client: pg.PoolClient, s: Schema): Promise<void> {
  await client.query(`DELETE FROM ${s}.inactivations WHERE document_number IN (SELECT document_number FROM chg_events)`);
  await client.query(
    inactivationsSql(s, `AND ev.document_number IN (SELECT document_number FROM chg_events)`),
    inactivationParams(),
  );
}
