// Refunds of credits held or kept for answers that were not given (docs/contract.md, "What a client can rely on").
// A refund the database refuses (it is down) is owed and tried again, every kind in one statement, so that a
// long outage's thousands of doubtful checks cannot hold the few real refunds behind them.
import type pg from 'pg';
import type { Clock } from '../clock.js';

/**
 * What a refund gives back: a reservation never kept; every reservation held under a request's id, of a gate check
 * that failed and may have committed some unseen (src/accounts/gate.ts, InDoubt); or an answer kept (or perhaps kept)
 * and then not given.
 */
export type Refund =
  | { readonly kind: 'reservation' }
  | { readonly kind: 'unseen' }
  | { readonly kind: 'answer'; readonly status: number; readonly note: string };

interface Owed {
  readonly requestId: string;
  readonly entries: readonly number[];
  readonly refund: Refund;
}

/** A refund the database refused is tried again this often (held credits are free this long after it is back). */
const REFUND_RETRY_MS = 1_000;

export class Refunds {
  /** Refunds still to write, by kind, request and entries (a request can owe a part's refund beside the rest's). */
  private readonly owed = new Map<string, Owed>();
  private retry: NodeJS.Timeout | null = null;
  /** The try in flight: a second one beside it would write again what it is writing. */
  private trying: Promise<void> | null = null;

  constructor(
    private readonly pool: pg.Pool,
    private readonly clock: Clock,
    private readonly onError: (err: unknown, fields: Record<string, unknown>, message: string) => void,
  ) {}

  /** Writes a request's refund; resolves once written or, if the database refused, owed. */
  async refund(requestId: string, entries: readonly number[], refund: Refund): Promise<void> {
    if (entries.length === 0) return;
    const owed = [{ requestId, entries: [...entries], refund }];
    await this.writeOrOwe(owed, { request_id: requestId });
  }

  /** Frees what the requests hold under their ids though they know of no reservation (the gate's InDoubt). */
  async unseen(requestIds: readonly string[]): Promise<void> {
    if (requestIds.length === 0) return;
    const owed = requestIds.map((requestId) => ({ requestId, entries: [], refund: { kind: 'unseen' } as const }));
    await this.writeOrOwe(owed, { request_ids: requestIds });
  }

  private async writeOrOwe(owed: readonly Owed[], fields: Record<string, unknown>): Promise<void> {
    try {
      await this.write(owed);
    } catch (err) {
      this.onError(err, fields, 'a refund failed; it is tried again every second');
      for (const o of owed) this.owed.set(`${o.refund.kind} ${o.requestId} ${o.entries.join(',')}`, o);
      this.retry ??= setTimeout(() => void this.retryOwed(), REFUND_RETRY_MS).unref();
    }
  }

  /** Writes refunds: answers one by one (each logs its status), the other kinds one statement each. */
  private async write(owed: readonly Owed[]): Promise<void> {
    const now = this.clock.now();
    const reservations = owed.filter((o) => o.refund.kind === 'reservation');
    const unseen = owed.filter((o) => o.refund.kind === 'unseen').map((o) => o.requestId);
    for (const { requestId, entries, refund } of owed)
      if (refund.kind === 'answer')
        await this.pool.query('SELECT api_refund_answer($1, $2, $3, $4, $5)', [
          requestId,
          entries,
          now,
          refund.status,
          refund.note,
        ]);
    // Only each request's own entries (a database crash can lose an entry and give its id to another's).
    if (reservations.length > 0) {
      const pairs = reservations.flatMap((o) => o.entries.map((entry) => [entry, o.requestId] as const));
      await this.pool.query(
        `SELECT api_settle(x.entry, true, $3) FROM unnest($1::bigint[], $2::text[]) x(entry, request_id)
         JOIN credit_ledger l ON l.id = x.entry AND l.request_id = x.request_id`,
        [pairs.map((p) => p[0]), pairs.map((p) => p[1]), now],
      );
    }
    // Held reservations are few (requests in flight): read them all for the requests' own.
    if (unseen.length > 0)
      await this.pool.query(
        `SELECT api_settle(r.ledger_id, true, $2) FROM credit_reservations r
         JOIN credit_ledger l ON l.id = r.ledger_id AND l.request_id = ANY($1::text[])`,
        [unseen, now],
      );
  }

  private retryOwed(): Promise<void> {
    this.trying ??= this.tryOwed().finally(() => (this.trying = null));
    return this.trying;
  }

  private async tryOwed(): Promise<void> {
    this.retry = null;
    // Real refunds first, then the doubtful checks': reservations and unseen each in one go, answers one by one
    // (each is its own transaction); on a refusal all wait for the next try.
    const byKind = (kind: Refund['kind']) => [...this.owed].filter(([, o]) => o.refund.kind === kind);
    const groups = [byKind('reservation'), ...byKind('answer').map((a) => [a]), byKind('unseen')];
    for (const group of groups) {
      if (group.length === 0) continue;
      try {
        await this.write(group.map(([, o]) => o));
        for (const [key] of group) this.owed.delete(key);
      } catch {
        break;
      }
    }
    if (this.owed.size > 0) this.retry = setTimeout(() => void this.retryOwed(), REFUND_RETRY_MS).unref();
  }

  /** One last try at what is owed (a server stopping); what still fails is the sweeper's. */
  async close(): Promise<void> {
    await this.trying;
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    if (this.owed.size > 0) await this.retryOwed();
    if (this.retry) clearTimeout(this.retry);
  }
}
