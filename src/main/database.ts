// The service's database as every entry point opens it: migrated, then the reference tables written from
// the code, data files and configuration that define them (the plans of the catalog, the ZIP-to-county
// table, the seller printed on billing documents).
import { syncPlans } from '../accounts/plans.js';
import { syncSeller } from '../billing/documents.js';
import type { Config } from '../config/index.js';
import { openDatabase, type Database, type OpenOptions } from '../db/index.js';
import { migrate } from '../db/migrate.js';
import type { Pool } from '../db/pool.js';
import { syncZipCounties } from '../registry/counties.js';

export async function prepareDatabase(pool: Pool): Promise<void> {
  await migrate(pool);
  await syncPlans(pool);
  await syncZipCounties(pool);
}

export const openServiceDatabase = (config: Config, opts: Omit<OpenOptions, 'prepare'> = {}): Promise<Database> =>
  openDatabase(config, {
    ...opts,
    prepare: async (pool) => {
      await prepareDatabase(pool);
      // The documents issued from now on name the seller as configured.
      await syncSeller(pool, config.billing.seller);
    },
  });
