// The exports' worker wired to the operation table (docs/exports.md): an export's pages are its list operation's
// own, read through the operation's handler with the cursor of the page before, as a client's walk would read them.
import type pg from 'pg';
import { z } from 'zod';
import type { Clock } from '../clock.js';
import type { Config } from '../config/index.js';
import { INSTANCE_ID } from '../db/instance.js';
import type { Column } from '../exports/formats.js';
import { startExportWorker } from '../exports/runner.js';
import type { Worker } from '../jobs/worker-loop.js';
import type { ListResult, Operation } from '../api/operation.js';
import { EXPORTABLE } from '../api/operations/exports.js';
import type { Services } from '../api/services.js';

/** A page as large as the operation allows: its `limit` clamps any size to its maximum. */
const LARGEST_PAGE = 1_000_000;

const operation = (name: string): Operation => EXPORTABLE.find((o) => o.name === name)!;

/** The type a column's values take, from the operation's hit schema (nullable or not). */
function columnType(schema: z.ZodType): Column['type'] {
  const def = schema._zod.def as { type: string; innerType?: z.ZodType };
  if (def.innerType) return columnType(def.innerType);
  return def.type === 'number' ? 'number' : def.type === 'boolean' ? 'boolean' : 'string';
}

/** The columns of an operation's rows, in the order of its hit schema. */
const columnsOf = (name: string): Column[] =>
  Object.entries((operation(name).result as z.ZodObject).shape).map(([key, schema]) => ({
    name: key,
    type: columnType(schema as z.ZodType),
  }));

/** Null when the configuration gives this process no slot (MATCH_JOB_SLOTS=0: no background work). */
export function startExports(
  pool: pg.Pool,
  services: Services,
  config: Config,
  clock: Clock,
  log: (line: string) => void,
  tuning: { chunkRows?: number } = {},
): Worker | null {
  if (config.matchJobSlots === 0) return null;
  return startExportWorker(
    {
      pool,
      async readPage(name, params, cursor, exportId) {
        const op = operation(name);
        const p = op.params.parse({ ...params, limit: LARGEST_PAGE, ...(cursor ? { cursor } : {}) });
        const ctx = {
          requestId: exportId,
          caller: null,
          now: clock.now(),
          services,
          clientIp: '',
          idempotencyKey: null,
        };
        const page = (await op.handle(p, ctx)) as ListResult<Record<string, unknown>>;
        return { rows: page.data, total: page.pagination.total, next: page.pagination.next_cursor };
      },
      columns: columnsOf,
      ...tuning,
      worker: INSTANCE_ID,
      now: () => clock.now(),
      log,
    },
    config.matchJobSlots,
  );
}
