// Monitoring's scheduled jobs: deliveries every few seconds (each instance; the claim keeps them apart,
// src/monitoring/delivery.ts) and the daily purge of the delivery log.
import path from 'node:path';
import { createMailer } from '../accounts/mail.js';
import type { Job } from '../jobs/job.js';
import { deliverDue, purgeDeliveryLog } from './delivery.js';

const webhookDeliveryJob: Job = {
  name: 'webhook_delivery',
  schedule: '*/5 * * * * *',
  description: 'sends due webhook deliveries and their retries (every 5 seconds)',
  atStartup: true,
  async run({ pool, config, log }) {
    const mailer = createMailer(
      { smtpUrl: config.web.smtpUrl, from: config.web.mailFrom, dir: path.join(config.dataDir, 'mail') },
      log,
    );
    try {
      return await deliverDue(pool, config.webhooks, mailer);
    } finally {
      mailer.close();
    }
  },
};

const webhookLogPurgeJob: Job = {
  name: 'webhook_log_purge',
  schedule: '45 0 * * *',
  description: "deletes webhook delivery attempts, and the delivery job's runs, older than 30 days (daily, 00:45 UTC)",
  async run({ pool, asOf }) {
    return await purgeDeliveryLog(pool, asOf, webhookDeliveryJob.name);
  },
};

export const MONITORING_JOBS: readonly Job[] = [webhookDeliveryJob, webhookLogPurgeJob];
