// Exports are kept 7 days after they end (docs/exports.md): their files can be as large as the registry.
import type { Job } from '../jobs/job.js';
import { purgeEnded } from '../jobs/purge-ended.js';

export const EXPORT_JOBS: readonly Job[] = [
  purgeEnded({
    name: 'export_purge',
    table: 'exports',
    what: 'exports (and their files)',
    keptDays: 7,
    schedule: '55 0 * * *',
    at: '00:55',
  }),
];
