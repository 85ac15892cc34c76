// The identity of a query for its cached total and facets: what it matches, never its order or page,
// with the dataset version (an import changes it, so a cached answer cannot go stale).
import type { NameMatch } from './entities/name.js';
import type { EntitySearch } from './entities/query.js';
import type { Term } from './words/expansion.js';

/** An entity query's key for `what` (its total, or facets): the name's expansions and every filter. */
export function entityKey(version: number, q: EntitySearch, name: NameMatch, what: string): string {
  const { sort: _s, limit: _l, offset: _o, facets: _f, name: _n, ...filters } = q;
  const nameKeyPart =
    name.kind === 'words' ? name.terms.map((t) => t.expansions) : name.kind === 'prefix' ? name.core : name.kind;
  return JSON.stringify([what, version, nameKeyPart, filters]);
}

/** An officer or agent query's key: the table searched, the name and its expansions, and the other filter. */
export const namesKey = (
  from: string,
  version: number,
  norm: string | undefined,
  terms: readonly Term[],
  extra: string | undefined,
): string => JSON.stringify([from, version, norm, terms.map((t) => t.expansions), extra]);

/** An address query's key: the ZIP it asks for, or its words' expansions. */
export const addressesKey = (version: number, zip: string | null, terms: readonly Term[]): string =>
  JSON.stringify(['addresses', version, zip ?? terms.map((t) => t.expansions)]);
