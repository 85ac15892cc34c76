// Tables derived from the loaded records, one module each under derived/: registered-agent groups,
// the word dictionaries used for fuzzy expansion, precomputed counts, ranked postings, and each
// entity's last inactivating event. Built whole after a snapshot load and moved by the difference
// after a set of changes.
import type pg from 'pg';
import { agentDerivations, refreshAgents } from './derived/agents.js';
import { countDerivations, moveCounts } from './derived/counts.js';
import type { Derivation, Schema } from './derived/derivation.js';
import { movePostings, postingDerivations } from './derived/postings.js';
import { WORD_THRESHOLDS, dictionaryDerivations, moveDictionaries } from './derived/words.js';

export type { Derivation, Schema } from './derived/derivation.js';
export { eventDerivations, refreshEventDerived } from './derived/inactivations.js';
export { COUNTED_WORD, FREQUENT_WORD, type WordThresholds } from './derived/words.js';

/** The corporate-derived tables of a freshly loaded schema, each built in its own statement. */
export function corporateDerivations(s: Schema, words = WORD_THRESHOLDS): Derivation[] {
  return [...agentDerivations(s), ...dictionaryDerivations(s, words), ...countDerivations(s), ...postingDerivations(s)];
}

/**
 * Before a change set replaces rows: keeps the rows it replaces (`old_entities`, `old_officers`),
 * so `refreshCorporateDerived` can move every derived count by the difference.
 */
export async function rememberCorporateDerived(client: pg.PoolClient, s: Schema): Promise<void> {
  await client.query(`
    CREATE TEMP TABLE old_entities ON COMMIT DROP AS
    SELECT e.* FROM ${s}.entities e JOIN chg_entities c ON c.document_number = e.document_number`);
  await client.query(`
    CREATE TEMP TABLE old_officers ON COMMIT DROP AS
    SELECT o.* FROM ${s}.officers o JOIN chg_entities c ON c.document_number = o.document_number`);
}

/**
 * After a change set: reshows the agent groups it touched (the agent dictionary moves by them), and
 * moves dictionaries, counts and postings. Returns how many agent groups more there are.
 */
export async function refreshCorporateDerived(client: pg.PoolClient, s: Schema): Promise<number> {
  const agents = await refreshAgents(client, s);
  await moveDictionaries(client, s);
  await moveCounts(client, s);
  await movePostings(client, s);
  return agents;
}
