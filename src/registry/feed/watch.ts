// A process's one look at the change feed for its open streams (docs/contract.md, "Change feed"): the newest
// change's number, read every FEED_POLL_MS while some stream waits, and each waiting stream woken once the feed
// has passed its position. A poll, not LISTEN/NOTIFY: imports commit from any process (a worker, the CLI), a
// notification reaches no session of a read replica, and listening would hold a connection of its own outside
// the pools and need its own reconnection; one read of one row every two seconds costs nothing measurable.

/** How often the newest number is read while a stream waits: well within the 10 s a change may take to be seen. */
const FEED_POLL_MS = 2000;

interface Waiter {
  readonly position: number;
  done(): void;
}

export class FeedWatcher {
  private readonly waiting = new Set<Waiter>();
  private timer: NodeJS.Timeout | null = null;
  private polling = false;

  constructor(
    private readonly newest: () => Promise<number>,
    private readonly pollMs = FEED_POLL_MS,
  ) {}

  /** Resolves once the feed's newest change is past `position`, after `ms`, or when `signal` aborts. */
  wait(position: number, ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const timeout = setTimeout(() => waiter.done(), ms);
      const waiter: Waiter = {
        position,
        done: () => {
          clearTimeout(timeout);
          signal.removeEventListener('abort', waiter.done);
          this.waiting.delete(waiter);
          if (this.waiting.size === 0 && this.timer) {
            clearInterval(this.timer);
            this.timer = null;
          }
          resolve();
        },
      };
      if (signal.aborted) return waiter.done();
      signal.addEventListener('abort', waiter.done, { once: true });
      this.waiting.add(waiter);
      this.timer ??= setInterval(() => void this.poll(), this.pollMs).unref();
    });
  }

  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      const newest = await this.newest();
      for (const w of [...this.waiting]) if (newest > w.position) w.done();
    } catch {
      // The next poll reads again; a stream's own reads report a database that does not answer.
    } finally {
      this.polling = false;
    }
  }
}
