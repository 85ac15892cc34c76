// Registered-agent groups (registry.agents: one per normalized name and ZIP5) and the spellings they
// are shown from (registry.agent_spellings: how often each spelling occurs among a group's entities).
import type pg from 'pg';
import type { Derivation, Schema } from './derivation.js';

/** An entity row's agent spelling: the columns of `agent_spellings` but its count. */
const SPELLING = `agent_key, coalesce(agent_zip5, '') AS zip5, agent_name AS name, agent_city AS city,
  agent_state AS state, agent_words AS words`;

/**
 * The agent groups of the spellings `where` selects (see registry.agent_spellings). A group
 * shows its most frequent name, city and state, the first in sort order among equally frequent ones
 * (as mode() would over its entities); most groups have a single spelling, and only the others are
 * sorted for it. The sorted-name key is computed once per group. A group in `kept` keeps its id; the
 * others are numbered after the highest id of the table and of `kept`.
 */
function agentGroupsSql(s: Schema, where: string, kept: string): string {
  const spellings = `${s}.agent_spellings WHERE n > 0 ${where}`;
  const shown = (col: string): string => `
    SELECT DISTINCT ON (agent_key, zip5) agent_key, zip5, ${col} FROM (
      SELECT agent_key, zip5, ${col}, sum(n) AS n FROM several WHERE ${col} IS NOT NULL GROUP BY 1, 2, 3
    ) x ORDER BY agent_key, zip5, n DESC, ${col}`;
  const one = (col: string, alias: string): string =>
    `CASE WHEN g.spellings = 1 THEN g.${col} ELSE ${alias}.${col} END`;
  return `
    WITH g AS MATERIALIZED (
      SELECT agent_key, zip5, sum(n) AS entity_count, min(words) AS name_words, count(*) AS spellings,
             min(name) AS name, min(city) AS city, min(state) AS state
      FROM ${spellings} GROUP BY 1, 2),
    several AS MATERIALIZED (
      SELECT * FROM ${spellings} AND (agent_key, zip5) IN (SELECT agent_key, zip5 FROM g WHERE spellings > 1))
    INSERT INTO ${s}.agents (agent_key, zip5, name, city, state, entity_count, name_sorted, name_words, id)
    SELECT g.agent_key, g.zip5, ${one('name', 'nm')}, ${one('city', 'ct')}, ${one('state', 'st')}, g.entity_count,
           array_to_string(ARRAY(SELECT unnest(g.name_words) ORDER BY 1), ' '), g.name_words,
           -- New ids skip the numbers of kept rows: unique, and after every kept one.
           coalesce(k.id, greatest((SELECT max(id) FROM ${s}.agents), (SELECT max(id) FROM ${kept}), 0)
                          + row_number() OVER (ORDER BY g.agent_key, g.zip5))
    FROM g
    LEFT JOIN (${shown('name')}) nm USING (agent_key, zip5)
    LEFT JOIN (${shown('city')}) ct USING (agent_key, zip5)
    LEFT JOIN (${shown('state')}) st USING (agent_key, zip5)
    LEFT JOIN ${kept} k USING (agent_key, zip5)`;
}

/** The spellings of a freshly loaded schema, then its agent groups from them. */
export function agentDerivations(s: Schema): Derivation[] {
  return [
    {
      table: 'agent_spellings',
      after: [],
      reads: 'entities',
      build: (c) =>
        c.query(`
          INSERT INTO ${s}.agent_spellings (agent_key, zip5, name, city, state, words, n)
          SELECT ${SPELLING}, count(*) FROM ${s}.entities WHERE agent_key IS NOT NULL GROUP BY 1, 2, 3, 4, 5, 6`),
    },
    // The table is empty here: every group is new.
    {
      table: 'agents',
      after: ['agent_spellings'],
      reads: 'entities',
      build: (c) => c.query(agentGroupsSql(s, '', `${s}.agents`)),
    },
  ];
}

/**
 * Moves the agent spellings by the rows leaving (`old_entities`) and arriving (`chg_entities`), then
 * reshows the groups they belong to from their spellings (ids kept). Leaves the groups' rows before
 * and after in `old_agents` and `new_agents`; returns how many groups more there are.
 */
export async function refreshAgents(client: pg.PoolClient, s: Schema): Promise<number> {
  await client.query(`
    CREATE TEMP TABLE spelling_moves ON COMMIT DROP AS
    SELECT agent_key, zip5, name, city, state, words, sum(delta)::int AS delta FROM (
      SELECT ${SPELLING}, 1 AS delta FROM chg_entities WHERE agent_key IS NOT NULL
      UNION ALL SELECT ${SPELLING}, -1 FROM old_entities WHERE agent_key IS NOT NULL
    ) moves GROUP BY 1, 2, 3, 4, 5, 6 HAVING sum(delta) <> 0`);
  const same = `sp.agent_key = m.agent_key AND sp.zip5 = m.zip5 AND sp.name = m.name
    AND sp.city IS NOT DISTINCT FROM m.city AND sp.state IS NOT DISTINCT FROM m.state AND sp.words = m.words`;
  await client.query(`UPDATE ${s}.agent_spellings sp SET n = sp.n + m.delta FROM spelling_moves m WHERE ${same}`);
  await client.query(`
    INSERT INTO ${s}.agent_spellings (agent_key, zip5, name, city, state, words, n)
    SELECT * FROM spelling_moves m WHERE NOT EXISTS (SELECT 1 FROM ${s}.agent_spellings sp WHERE ${same})`);
  await client.query(`DELETE FROM ${s}.agent_spellings sp USING spelling_moves m WHERE ${same} AND sp.n = 0`);

  await client.query(`
    CREATE TEMP TABLE touched_agents ON COMMIT DROP AS SELECT DISTINCT agent_key, zip5 FROM spelling_moves`);
  await client.query(`
    CREATE TEMP TABLE old_agents ON COMMIT DROP AS
    SELECT a.* FROM ${s}.agents a JOIN touched_agents t ON a.agent_key = t.agent_key AND a.zip5 = t.zip5`);
  await client.query(
    `DELETE FROM ${s}.agents a USING touched_agents t WHERE a.agent_key = t.agent_key AND a.zip5 = t.zip5`,
  );
  await client.query(
    agentGroupsSql(s, `AND (agent_key, zip5) IN (SELECT agent_key, zip5 FROM touched_agents)`, 'old_agents'),
  );
  await client.query(`
    CREATE TEMP TABLE new_agents ON COMMIT DROP AS
    SELECT a.* FROM ${s}.agents a JOIN touched_agents t ON a.agent_key = t.agent_key AND a.zip5 = t.zip5`);
  const { rows } = await client.query<{ n: number }>(
    'SELECT (SELECT count(*) FROM new_agents) - (SELECT count(*) FROM old_agents) AS n',
  );
  return Number(rows[0]!.n);
}
