// The match predicates of entity searches for a caller that evaluates them itself, over rows of its own
// (monitoring, on the entities an import touched: src/monitoring/matches.ts): the search's own conditions
// (filters.ts) over the alias `e`, many searches' word lookups batched into one statement a dictionary.
import type pg from 'pg';
import { Sql } from '../sql.js';
import { batchedExpand } from '../words/batched.js';
import { matchConditions } from './filters.js';
import { analyzeName } from './name.js';
import type { EntitySearch } from './query.js';

/** Conditions that share one statement's parameters: `conditions[i]` is the i-th search's. */
interface Predicates {
  readonly conditions: string[];
  readonly params: unknown[];
}

export interface PredicateCompiler {
  compile(searches: readonly EntitySearch[]): Promise<Predicates>;
}

/**
 * Compiles predicates on `client` (its own uncommitted rows included: the words an import brings),
 * looking an officer name up among the rows of `officers` (a table of registry.officers' shape).
 */
export function entityPredicates(client: pg.PoolClient, officers: string): PredicateCompiler {
  const expand = batchedExpand(client);
  return {
    async compile(searches) {
      const sql = new Sql();
      // All at once, so that their word lookups share statements; each condition names its own placeholders.
      const conditions = await Promise.all(
        searches.map(async (q) => {
          const name = await analyzeName(client, q.name, expand);
          const where = await matchConditions(client, sql, q, name, null, { officers, expand });
          return where.join(' AND ') || 'true';
        }),
      );
      return { conditions, params: sql.params };
    },
  };
}
