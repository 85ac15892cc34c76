// The in-process store (one server): per key, the accepted requests' times in a ring buffer, so
// that a request costs O(1) however high the limit (an enterprise override of thousands a minute).
// Keys idle for a whole window are dropped once a minute, so addresses seen once do not pile up.
import type { Clock } from '../clock.js';
import { decision, WINDOW_MS, type RateDecision, type RateLimiter } from './window.js';

/** Times in milliseconds, oldest first, in a growable ring buffer. */
class TimeLog {
  private times = new Float64Array(8);
  private head = 0;
  size = 0;

  /** Drops the times at or before `cutoff` (they have left the window). */
  expire(cutoff: number): void {
    while (this.size > 0 && this.at(0) <= cutoff) {
      this.head = (this.head + 1) % this.times.length;
      this.size--;
    }
  }

  push(t: number): void {
    if (this.size === this.times.length) this.grow();
    this.times[(this.head + this.size) % this.times.length] = t;
    this.size++;
  }

  /** The i-th oldest time. */
  at(i: number): number {
    return this.times[(this.head + i) % this.times.length] as number;
  }

  private grow(): void {
    const next = new Float64Array(this.times.length * 2);
    for (let i = 0; i < this.size; i++) next[i] = this.at(i);
    this.times = next;
    this.head = 0;
  }
}

export class MemoryRateLimiter implements RateLimiter {
  private readonly logs = new Map<string, TimeLog>();
  private lastSweep: number;

  constructor(private readonly clock: Clock) {
    this.lastSweep = clock.now().getTime();
  }

  /** Keys currently held (for tests of the idle sweep). */
  get keyCount(): number {
    return this.logs.size;
  }

  async hit(key: string, limit: number): Promise<RateDecision> {
    const now = this.now();
    let log = this.logs.get(key);
    if (!log) this.logs.set(key, (log = new TimeLog()));
    log.expire(now - WINDOW_MS);
    const allowed = log.size < limit;
    if (allowed) log.push(now);
    return decision(limit, allowed, log.size, log.at(0), now);
  }

  async peek(key: string, limit: number): Promise<RateDecision> {
    const now = this.now();
    const log = this.logs.get(key);
    log?.expire(now - WINDOW_MS);
    return log && log.size > 0
      ? decision(limit, log.size < limit, log.size, log.at(0), now)
      : decision(limit, true, 0, now, now);
  }

  async close(): Promise<void> {
    this.logs.clear();
  }

  /** The clock's time, dropping idle keys at most once a window. */
  private now(): number {
    const now = this.clock.now().getTime();
    if (now - this.lastSweep >= WINDOW_MS) {
      const cutoff = now - WINDOW_MS;
      for (const [key, log] of this.logs) if (log.size === 0 || log.at(log.size - 1) <= cutoff) this.logs.delete(key);
      this.lastSweep = now;
    }
    return now;
  }
}
