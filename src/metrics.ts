// The service's metrics, served as Prometheus text at GET /metrics. One registry per app (not the
// library's global one), so that several apps in one process (tests) count apart.
import { Counter, Registry } from 'prom-client';

export interface Metrics {
  readonly registry: Registry;
  /** Rate-limit store calls that failed, timed out or were skipped during a pause, whose requests were let through. */
  readonly rateLimitFailures: Counter<'reason'>;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  const rateLimitFailures = new Counter({
    name: 'ratelimit_store_failures_total',
    help:
      'Rate-limit store calls that failed (reason "error"), did not answer in time (reason "timeout") or were ' +
      'not made during the pause after a time-out (reason "paused"); the request was let through.',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  // Every series exists from the start, so that a rate() over it is defined before the first failure.
  rateLimitFailures.inc({ reason: 'error' }, 0);
  rateLimitFailures.inc({ reason: 'timeout' }, 0);
  rateLimitFailures.inc({ reason: 'paused' }, 0);
  return { registry, rateLimitFailures };
}
