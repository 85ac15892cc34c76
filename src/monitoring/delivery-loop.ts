// The delivery loop every delivering process runs (docs/webhooks.md, "Delivery"): up to MAX_IN_FLIGHT attempts at
// once, more claimed as soon as one ends, so no attempt waits for another; the claim (claim.ts) keeps processes
// apart and each endpoint to its cap. No lock is held while sending: instances deliver side by side.
import path from 'node:path';
import type pg from 'pg';
import { createMailer, type Mailer } from '../accounts/mail.js';
import type { Config } from '../config/index.js';
import { claim, type Claimed } from './claim.js';
import { deliver, type DeliverySettings } from './delivery.js';

/** Attempts in flight in one process: they hold sockets, not database connections; this bounds a burst's. */
const MAX_IN_FLIGHT = 50;
/** A loop with nothing to claim looks again after this: the longest a new event waits; an empty claim is cheap. */
const IDLE_POLL_MS = 1_000;

export interface DeliveryLoop {
  /** Claims nothing more and waits for the attempts in flight (each ends by its deadline). */
  stop(): Promise<void>;
}

/** The mailer of the notices of paused endpoints, as the web app sends its mail. */
export const deliveryMailer = (config: Config, log: (line: string) => void): Mailer =>
  createMailer({ smtpUrl: config.web.smtpUrl, from: config.web.mailFrom, dir: path.join(config.dataDir, 'mail') }, log);

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

function startLoop(
  pool: pg.Pool,
  settings: DeliverySettings,
  mailer: Mailer,
  log: (line: string) => void,
): DeliveryLoop {
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  // An attempt that ended while the loop was claiming: claim again at once rather than rest.
  let nudged = false;
  let wake: (() => void) | null = null;
  const nudge = (): void => {
    nudged = true;
    wake?.();
  };
  const rest = (): Promise<void> =>
    new Promise((resolve) => {
      const timer = setTimeout(done, IDLE_POLL_MS);
      function done(): void {
        clearTimeout(timer);
        wake = null;
        resolve();
      }
      wake = done;
    });
  let claimFailing = false;
  const send = (d: Claimed): void => {
    const attempt = deliver(pool, d, settings, mailer)
      .then(() => undefined)
      .catch((err: unknown) => log(`webhook delivery ${d.id} to ${d.endpoint_id}: ${message(err)}`))
      .finally(() => {
        inFlight.delete(attempt);
        nudge();
      });
    inFlight.add(attempt);
  };
  const run = async (): Promise<void> => {
    while (!stopped) {
      nudged = false;
      const free = MAX_IN_FLIGHT - inFlight.size;
      let claimed: Claimed[] = [];
      if (free > 0) {
        try {
          claimed = await claim(pool, free);
          if (claimFailing) log('webhook delivery: claiming works again');
          claimFailing = false;
        } catch (err) {
          // Logged once per outage, not every second.
          if (!claimFailing) log(`webhook delivery: claiming failed, trying every second: ${message(err)}`);
          claimFailing = true;
        }
      }
      for (const d of claimed) send(d);
      // Every slot taken, or nothing more due: until an attempt ends or the next look.
      if ((free === 0 || claimed.length < free) && !nudged && !stopped) await rest();
    }
  };
  const running = run();
  return {
    async stop() {
      stopped = true;
      wake?.();
      await running;
      await Promise.all(inFlight);
    },
  };
}

/** Starts delivering webhooks in this process (`registry serve` with WEBHOOKS_DELIVERY, `registry worker`). */
export function startWebhookDelivery(pool: pg.Pool, config: Config, log: (line: string) => void): DeliveryLoop {
  const mailer = deliveryMailer(config, log);
  const loop = startLoop(pool, config.webhooks, mailer, log);
  return {
    async stop() {
      await loop.stop();
      mailer.close();
    },
  };
}
