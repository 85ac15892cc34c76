// The credit's last stage (docs/contract.md, "What a client can rely on"): a charged answer is kept before it is
// sent, with its request-log row, its daily usage and its idempotent copy, in one committed transaction; a request
// that failed, or an answer that never reached its client, is refunded. Refunds that fail (the database is down)
// are tried again until they pass, so held credits are free within a second or two of the database answering.
import type pg from 'pg';
import type { Clock } from '../clock.js';
import type { RequestLogRow } from './request-log.js';

/** One charge of an answer about to be sent, and the copy an Idempotency-Key keeps of it. */
export interface KeptCharge {
  readonly ledgerId: number;
  readonly idempotency: {
    readonly key: string;
    readonly status: number;
    readonly type: string;
    readonly body: string;
  } | null;
}

/** An answer about to be sent: its log row (credits are counted from its charges) and its charges. */
export interface Keep {
  readonly log: Omit<RequestLogRow, 'credits'>;
  readonly charges: readonly KeptCharge[];
}

interface Waiting {
  readonly keep: Keep;
  resolve(kept: boolean): void;
  reject(err: unknown): void;
}

/**
 * Keeps the credits of answers about to be sent, with their request-log rows, their daily usage and their idempotent
 * copies, in one statement (one transaction, committed to the disk). A request is kept only when every reservation it
 * holds is still there and is its own in the ledger (one the sweeper released, or a database crash lost and whose id
 * went to another request, means its answer must not be sent; its other reservations are refunded). Charges are
 * flattened: charge j belongs to request $2[j], a position in the request arrays $8 to $19. Answers the positions kept.
 */
const KEEP_SQL = `
WITH e AS (
  SELECT * FROM unnest($1::bigint[], $2::int[], $3::text[], $4::text[], $5::text[], $6::int[])
    AS e(id, req, key, type, body, status)),
q AS (
  SELECT * FROM unnest($8::text[], $9::timestamptz[], $10::text[], $11::text[], $12::text[], $13::boolean[],
                       $14::text[], $15::text[], $16::text[], $17::int[], $18::real[], $19::text[]) WITH ORDINALITY
    AS q(request_id, at, workspace_id, key_id, user_id, test_key, surface, method, route, status, duration_ms,
         client_ip, i)),
gone AS (
  DELETE FROM credit_reservations r USING credit_ledger l, e, q
  WHERE r.ledger_id = e.id AND l.id = e.id AND q.i = e.req AND l.request_id = q.request_id
  RETURNING r.ledger_id),
kept AS (
  SELECT q.*, (SELECT count(*) FROM e WHERE e.req = q.i)::int AS credits FROM q
  WHERE NOT EXISTS (SELECT 1 FROM e WHERE e.req = q.i AND e.id NOT IN (SELECT ledger_id FROM gone))),
refunded AS (
  SELECT refund_charge(e.id, $7, 'answer not sent') FROM e
  WHERE e.id IN (SELECT ledger_id FROM gone) AND e.req NOT IN (SELECT i FROM kept)),
logged AS (
  INSERT INTO request_logs (request_id, at, workspace_id, key_id, user_id, surface, method, route, status, duration_ms,
                            credits, client_ip)
  SELECT request_id, at, workspace_id, key_id, user_id, surface, method, route, status, duration_ms, credits, client_ip
  FROM kept
  ON CONFLICT (request_id) DO NOTHING),
used AS (
  INSERT INTO usage_days AS u (workspace_id, day, rest, mcp)
  SELECT workspace_id, (at AT TIME ZONE 'UTC')::date, coalesce(sum(credits) FILTER (WHERE surface = 'rest'), 0),
         coalesce(sum(credits) FILTER (WHERE surface = 'mcp'), 0)
  FROM kept WHERE workspace_id IS NOT NULL AND NOT test_key AND surface IN ('rest', 'mcp')
  GROUP BY 1, 2
  ON CONFLICT (workspace_id, day) DO UPDATE SET rest = u.rest + excluded.rest, mcp = u.mcp + excluded.mcp),
copied AS (
  UPDATE idempotent_requests i SET status = e.status, content_type = e.type, body = e.body
  FROM e JOIN kept k ON k.i = e.req
  WHERE e.key IS NOT NULL AND i.workspace_id = k.workspace_id AND i.key = e.key AND i.request_id = k.request_id)
SELECT (SELECT array_agg(i::int) FROM kept) AS kept, (SELECT count(*) FROM refunded) AS refunds`;

/** The most answers kept in one transaction. */
const MAX_BATCH = 256;
/** A refund the database refused is tried again this often (held credits are free this long after it is back). */
const REFUND_RETRY_MS = 1_000;

export class Settlement {
  private queue: Waiting[] = [];
  private running = false;
  /** Refunds still to write, by request: reservations to release, or kept answers that were not delivered. */
  private readonly owed = new Map<string, { entries: number[]; kept: boolean }>();
  private retry: NodeJS.Timeout | null = null;

  constructor(
    private readonly pool: pg.Pool,
    private readonly clock: Clock,
    private readonly onError: (err: unknown, fields: Record<string, unknown>, message: string) => void,
  ) {}

  /**
   * Keeps an answer's charges; resolves true once committed (to the disk: synchronous commit), false when one of
   * its reservations is gone (the answer must not be sent; its others are refunded). Answers arriving while a
   * batch is in the database go together in the next one, so a busy instance commits once per batch.
   */
  keep(keep: Keep): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.queue.push({ keep, resolve, reject });
      if (!this.running) void this.run();
    });
  }

  private async run(): Promise<void> {
    this.running = true;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_BATCH);
      try {
        const kept = await this.write(batch.map((w) => w.keep));
        batch.forEach((w, i) => w.resolve(kept.has(i + 1)));
      } catch (err) {
        for (const w of batch) w.reject(err);
      }
    }
    this.running = false;
  }

  private async write(keeps: readonly Keep[]): Promise<Set<number>> {
    const charges = keeps.flatMap((k, i) => k.charges.map((c) => ({ ...c, request: i + 1 })));
    const logs = keeps.map((k) => k.log);
    const col = <K extends keyof Keep['log']>(key: K): Array<Keep['log'][K]> => logs.map((l) => l[key]);
    const { rows } = await this.pool.query<{ kept: number[] | null }>({
      name: 'settlement_keep',
      text: KEEP_SQL,
      values: [
        charges.map((c) => c.ledgerId),
        charges.map((c) => c.request),
        charges.map((c) => c.idempotency?.key ?? null),
        charges.map((c) => c.idempotency?.type ?? null),
        charges.map((c) => c.idempotency?.body ?? null),
        charges.map((c) => c.idempotency?.status ?? null),
        this.clock.now(),
        col('request_id'),
        col('at'),
        col('workspace_id'),
        col('key_id'),
        col('user_id'),
        col('test_key'),
        col('surface'),
        col('method'),
        col('route'),
        col('status'),
        col('duration_ms'),
        col('client_ip'),
      ],
    });
    return new Set(rows[0]?.kept ?? []);
  }

  /** Refunds the reservations of a request that failed; resolves once written or, if the database refused, queued. */
  async release(requestId: string, entries: readonly number[]): Promise<void> {
    await this.refund(requestId, entries, false);
  }

  /** Refunds an answer that was kept but did not reach its client (its log row then says 499). */
  async undelivered(requestId: string, entries: readonly number[]): Promise<void> {
    await this.refund(requestId, entries, true);
  }

  private async refund(requestId: string, entries: readonly number[], kept: boolean): Promise<void> {
    if (entries.length === 0) return;
    try {
      await this.writeRefund(entries, requestId, kept);
    } catch (err) {
      this.onError(err, { request_id: requestId }, 'a refund failed; it is tried again every second');
      this.owed.set(requestId, { entries: [...entries], kept });
      this.retry ??= setTimeout(() => void this.retryOwed(), REFUND_RETRY_MS).unref();
    }
  }

  private async writeRefund(entries: readonly number[], requestId: string, kept: boolean): Promise<void> {
    const now = this.clock.now();
    if (kept) await this.pool.query('SELECT api_undelivered($1, $2, $3)', [requestId, entries, now]);
    // Only the request's own entries (a database crash can lose an entry and give its id to another's).
    else
      await this.pool.query(
        `SELECT api_settle(x.entry, true, $2) FROM unnest($1::bigint[]) x(entry)
         JOIN credit_ledger l ON l.id = x.entry AND l.request_id = $3`,
        [entries, now, requestId],
      );
  }

  private async retryOwed(): Promise<void> {
    this.retry = null;
    for (const [requestId, { entries, kept }] of this.owed) {
      try {
        await this.writeRefund(entries, requestId, kept);
        this.owed.delete(requestId);
      } catch {
        break; // still down: all wait for the next try
      }
    }
    if (this.owed.size > 0) this.retry = setTimeout(() => void this.retryOwed(), REFUND_RETRY_MS).unref();
  }

  /** One last try at what is owed (a server stopping); what still fails is the sweeper's. */
  async close(): Promise<void> {
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    await this.retryOwed();
    if (this.retry) clearTimeout(this.retry);
  }
}
