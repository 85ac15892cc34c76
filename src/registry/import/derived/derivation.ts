// What every derived structure shares: the schema it is built in, and the shape of one full-load step.
import type pg from 'pg';

/** The live schema, or the staging one a full load builds before it swaps it in. */
export type Schema = 'registry' | 'registry_next';

/**
 * One derived table of a full load: the derived tables it reads (built before it), the copied table
 * whose rows it goes through (its size weighs the build when the load schedules it), and its build.
 */
export interface Derivation {
  readonly table: string;
  readonly after: readonly string[];
  readonly reads: 'entities' | 'officers' | 'events';
  build(client: pg.PoolClient): Promise<unknown>;
}
