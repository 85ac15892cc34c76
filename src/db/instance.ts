// This server instance as the database sees it. Its connections name it (the `registry.instance`
// setting, which the credit reservations they make record), and each of them, with a dedicated one,
// holds a shared advisory lock on its number for as long as it lives: a reservation is only ever made
// on a connection that holds the lock, so a database restart cannot make a live instance look gone.
// When the process dies, PostgreSQL ends its sessions and the locks go with them: its reservations
// are then known orphaned and are released within seconds (sweepReservations), not after the age limit.
import { randomInt } from 'node:crypto';
import pg from 'pg';

/** The advisory-lock class of instance locks (the second key is the instance number). */
const INSTANCE_LOCK_CLASS = 7_310_010;
/** A holder connection that could not be opened again (the database still down) is tried again after this long. */
const RECONNECT_MS = 250;

/** Takes the instance's lock on a connection (shared: every connection of the instance holds it). */
export const INSTANCE_LOCK_SQL = `SELECT pg_advisory_lock_shared(${INSTANCE_LOCK_CLASS}, $1)`;

/** This process's instance number: random, so that instances need no coordination to be told apart. */
export const INSTANCE_ID = randomInt(1, 2 ** 31 - 1);

/** Keeps the instance lock held on its own connection, taking it again after the connection is lost. */
export class InstanceHolder {
  private client: pg.Client | null = null;
  private retry: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly url: string,
    private readonly instance = INSTANCE_ID,
  ) {}

  /** Takes the lock; resolves once it is held (rejects if the first connection fails). */
  async start(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url, application_name: 'registry-lookup-instance' });
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    await client.connect();
    await client.query(INSTANCE_LOCK_SQL, [this.instance]);
    // Stopped while this (re)connection was under way: its lock must not outlive the holder.
    if (this.closed) {
      await client.end().catch(() => {});
      return;
    }
    this.client = client;
  }

  async stop(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => {});
  }

  private lost(client: pg.Client): void {
    if (this.closed || this.client !== client) return;
    this.client = null;
    const again = (): void => {
      this.retry = null;
      if (this.closed) return;
      this.start().catch(() => (this.retry = setTimeout(again, RECONNECT_MS)));
    };
    again();
  }
}
