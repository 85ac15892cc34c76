// The credit's last stage (docs/contract.md, "What a client can rely on"): a charged answer is kept before it is
// sent, with its request-log row, its daily usage and its idempotent copy, in one committed transaction; a request
// that failed, or an answer that never reached its client, is refunded. The common answer (one credit, no
// Idempotency-Key) is kept early, while its handler runs, so that the keep's round trip and flush are off the
// answer's path; its log row's status and time follow with the request log's batch (request-log.ts). Refunds
// (refunds.ts) that fail (the database is down) are tried again until they pass, so held credits are free within a
// second or two of the database answering.
import type pg from 'pg';
import type { Clock } from '../clock.js';
import type { RequestLogRow } from './request-log.js';
import { Refunds } from './refunds.js';
import { KEEP_ONE_SQL, KEEP_SQL } from './settlement-sql.js';

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

/** The most answers kept in one transaction. */
const MAX_BATCH = 256;
/** The log status of a kept answer that did not reach its client (nginx's "client closed request"). */
export const CLIENT_GONE = 499;

export class Settlement {
  private queue: Waiting[] = [];
  private running = false;
  private readonly refunds: Refunds;
  /** Early keeps by request: kept (true), gone (false), or failed; settled by keep() or release(). */
  private readonly early = new Map<string, { readonly ledgerId: number; readonly kept: Promise<boolean | Error> }>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly clock: Clock,
    onError: (err: unknown, fields: Record<string, unknown>, message: string) => void,
  ) {
    this.refunds = new Refunds(pool, clock, onError);
  }

  /**
   * Keeps an answer's charges; resolves true once committed (to the disk: synchronous commit), false when one of
   * its reservations is gone (the answer must not be sent; its others are refunded). Answers arriving while a
   * batch is in the database go together in the next one, so a busy instance commits once per batch.
   */
  keep(keep: Keep): Promise<boolean> {
    const early = this.early.get(keep.log.request_id);
    if (early) return this.finishEarly(keep, early);
    return this.enqueue(keep);
  }

  /**
   * Keeps a request's one charge while its handler runs, as the 200 it is expected to be (the log row's status
   * and time follow from the response's end, with the request log's batch). keep() then waits for it; release()
   * refunds it.
   */
  keepEarly(keep: Keep): void {
    const { request_id: id } = keep.log;
    if (keep.charges.length !== 1 || keep.charges[0]!.idempotency)
      throw new Error(`early keep of ${id}: one charge, no copy`);
    const kept = this.enqueue(keep).catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))));
    this.early.set(id, { ledgerId: keep.charges[0]!.ledgerId, kept });
  }

  private async finishEarly(keep: Keep, early: { ledgerId: number; kept: Promise<boolean | Error> }): Promise<boolean> {
    const { request_id: requestId } = keep.log;
    this.early.delete(requestId);
    if (keep.charges.length !== 1 || keep.charges[0]!.ledgerId !== early.ledgerId || keep.charges[0]!.idempotency)
      throw new Error(`the answer of ${requestId} has other charges than its early keep`);
    const kept = await early.kept;
    if (kept instanceof Error) throw kept;
    return kept;
  }

  private enqueue(keep: Keep): Promise<boolean> {
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
    const one = keeps.length === 1 && keeps[0]!.charges.length === 1 ? keeps[0]! : null;
    if (one && !one.charges[0]!.idempotency) return (await this.writeOne(one)) ? new Set([1]) : new Set();
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

  /** The common case on its own, planned in a fraction of the general statement's time (a request at a time). */
  private async writeOne(keep: Keep): Promise<boolean> {
    const l = keep.log;
    const { rows } = await this.pool.query<{ kept: number }>({
      name: 'settlement_keep_one',
      text: KEEP_ONE_SQL,
      values: [
        keep.charges[0]!.ledgerId,
        l.request_id,
        l.at,
        l.workspace_id,
        l.key_id,
        l.user_id,
        l.test_key,
        l.surface,
        l.method,
        l.route,
        l.status,
        l.duration_ms,
        l.client_ip,
      ],
    });
    return rows[0]!.kept === 1;
  }

  /**
   * Refunds a request that failed (its answer of `status`, or CLIENT_GONE): its reservations or, when it was kept
   * early, its kept charge, once the keep is over. Resolves once written or, if the database refused, queued.
   */
  async release(requestId: string, entries: readonly number[], status: number): Promise<void> {
    const early = this.early.get(requestId);
    if (!early) return this.refunds.refund(requestId, entries, { kind: 'reservation' });
    this.early.delete(requestId);
    await early.kept;
    await this.refunds.refund(requestId, entries, { kind: 'answer', status, note: 'request not served' });
  }

  /** Frees what the requests hold under their ids though they know of no reservation (the gate's InDoubt). */
  releaseUnseen(requestIds: readonly string[]): void {
    void this.refunds.unseen(requestIds);
  }

  /** Refunds an answer that was kept but did not reach its client (its log row then says 499). */
  async undelivered(requestId: string, entries: readonly number[]): Promise<void> {
    await this.refunds.refund(requestId, entries, {
      kind: 'answer',
      status: CLIENT_GONE,
      note: 'answer not delivered',
    });
  }

  /** One last try at what is owed (a server stopping); what still fails is the sweeper's. */
  close(): Promise<void> {
    return this.refunds.close();
  }
}
