// Which of the entities an import touched match a saved search: the entity search's own match predicate
// (src/search/entities/filters.ts), restricted to the touched document numbers, so its cost follows the
// file, not the dataset (docs/webhooks.md, "Events").
import type pg from 'pg';
import { matchConditions } from '../search/entities/filters.js';
import { analyzeName } from '../search/entities/name.js';
import type { EntitySearch } from '../search/entities/query.js';
import { Sql } from '../search/sql.js';

export interface SavedSearch {
  id: string;
  workspace_id: string;
  name: string;
  params: Omit<EntitySearch, 'limit' | 'offset'>;
}

/**
 * A saved search's predicate. Built on the import's connection, before and again after the change set:
 * a name's word expansions come from the vocabulary, which the import itself extends.
 */
export interface CompiledSearch {
  search: SavedSearch;
  where: string;
  params: unknown[];
}

export async function compileSearches(pool: pg.PoolClient, searches: SavedSearch[]): Promise<CompiledSearch[]> {
  const compiled: CompiledSearch[] = [];
  for (const search of searches) {
    const q: EntitySearch = { ...search.params, limit: 1, offset: 0 };
    const sql = new Sql();
    const where = await matchConditions(pool, sql, q, await analyzeName(pool, q.name), null);
    compiled.push({ search, where: where.join(' AND ') || 'true', params: sql.params });
  }
  return compiled;
}

/**
 * `search id -> document numbers` matching now among `touched` (a temp table with `document_number`),
 * read on `client` so it sees the import's own uncommitted rows.
 */
export async function currentMatches(
  client: pg.PoolClient,
  searches: CompiledSearch[],
  touched: string,
): Promise<Map<string, Set<string>>> {
  const found = new Map<string, Set<string>>();
  for (const c of searches) {
    const { rows } = await client.query<{ document_number: string }>(
      `SELECT e.document_number FROM registry.entities e
       WHERE e.document_number IN (SELECT document_number FROM ${touched}) AND ${c.where}`,
      c.params,
    );
    found.set(c.search.id, new Set(rows.map((r) => r.document_number)));
  }
  return found;
}
