// Monitoring's scheduled job: the daily purge of the delivery log. Deliveries are not a job: every delivering
// process runs the delivery loop (delivery-loop.ts).
import type { Job } from '../jobs/job.js';
import { purgeDeliveryLog } from './delivery.js';

const webhookLogPurgeJob: Job = {
  name: 'webhook_log_purge',
  schedule: '45 0 * * *',
  description: 'deletes webhook delivery attempts older than 30 days (daily, 00:45 UTC)',
  async run({ pool, asOf }) {
    return await purgeDeliveryLog(pool, asOf);
  },
};

export const MONITORING_JOBS: readonly Job[] = [webhookLogPurgeJob];
