// Where the server's unexpected errors are logged. One line per error, except while the database is
// unreachable: every request then fails the same way, so the first failure is logged with its cause,
// then one line per interval with the count, until a connection to the database succeeds again.
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../clock.js';
import { isDatabaseUnavailable } from '../db/pool.js';

/** During an outage, a line with the count of failures this often. */
export const OUTAGE_REPORT_MS = 10_000;

export class ErrorLog {
  private outage: { since: number; failures: number; reported: number } | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly log: FastifyBaseLogger,
    private readonly clock: Clock,
  ) {}

  /** Logs an unexpected error (`fields` name what failed), or counts it into the outage it belongs to. */
  error(err: unknown, fields: Record<string, unknown>, message: string): void {
    if (!isDatabaseUnavailable(err)) {
      this.log.error({ err, ...fields }, message);
      return;
    }
    if (this.outage) {
      this.outage.failures++;
      return;
    }
    const now = this.clock.now().getTime();
    this.outage = { since: now, failures: 1, reported: 1 };
    this.log.error({ err, ...fields }, `${message}: the database does not answer; counting failures until it does`);
    this.timer = setInterval(() => this.report(), OUTAGE_REPORT_MS);
    this.timer.unref();
  }

  /** A connection to the database succeeded: an outage, if any, is over. */
  connected(): void {
    if (!this.outage) return;
    const { since, failures } = this.outage;
    this.stopTimer();
    this.outage = null;
    const seconds = Math.round((this.clock.now().getTime() - since) / 1000);
    this.log.warn({ failures, seconds }, `the database answers again after ${seconds} s (${failures} failed requests)`);
  }

  /** Whether the database is known to be unreachable right now. */
  get unavailable(): boolean {
    return this.outage !== null;
  }

  close(): void {
    this.stopTimer();
  }

  private report(): void {
    const o = this.outage;
    if (!o) return;
    const now = this.clock.now().getTime();
    const failures = o.failures - o.reported;
    const seconds = Math.round((now - o.since) / 1000);
    this.log.error(
      { failures, seconds },
      `the database still does not answer (${failures} failures in the last interval)`,
    );
    o.reported = o.failures;
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
