// In a running server, the reservations of dead instances are released within seconds: a crashed
// instance's requests will never settle, and their credits must not stay locked until the minutely
// sweep job (a trial was refused with 402 while its credits sat in such reservations).
import type pg from 'pg';
import type { Clock } from '../clock.js';
import { sweepReservations } from './gate.js';

/**
 * How often a server looks for reservations of instances that are gone (a query on two tiny tables): a holder is
 * seen missing, and its grace seen over, within this long, so a dead instance's credits are free within about 2.5 s.
 */
const ORPHAN_SWEEP_MS = 250;

export function startOrphanSweeper(
  pool: pg.Pool,
  clock: Clock,
  onError: (err: unknown) => void,
): { stop(): Promise<void> } {
  let running: Promise<unknown> | null = null;
  // One report per outage, not one a tick: the database being down is reported elsewhere too.
  let failing = false;
  const sweep = (): void => {
    // A sweep still waiting (a slow database, a connection being made) is not joined by another.
    if (running) return;
    running = sweepReservations(pool, clock.now())
      .then(
        () => (failing = false),
        (err: unknown) => {
          if (!failing) onError(err);
          failing = true;
        },
      )
      .finally(() => (running = null));
  };
  sweep();
  const timer = setInterval(sweep, ORPHAN_SWEEP_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
