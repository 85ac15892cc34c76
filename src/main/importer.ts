// The importer as the service runs it: every change it makes is told to monitoring, which writes the
// events of watched entities and saved searches in the change's transaction (docs/webhooks.md).
import type pg from 'pg';
import { monitoringObserver } from '../monitoring/observer.js';
import { importFiles, type ImportOptions, type ImportSummary } from '../registry/import/index.js';

export const importRegistry = (
  pool: pg.Pool,
  paths: readonly string[],
  opts: ImportOptions = {},
): Promise<ImportSummary> => importFiles(pool, paths, { observer: monitoringObserver, ...opts });
