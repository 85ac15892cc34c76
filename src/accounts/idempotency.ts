// Idempotency keys (docs/contract.md, "Idempotency keys"): a metered request sent again with the key of one
// answered in the last 24 hours gets that answer again, free. The request's claim on its key, its replay and the
// purge; the answer itself is stored with its charge (src/accounts/settlement.ts).
import type pg from 'pg';
import type { Clock } from '../clock.js';
import { RESERVATION_TIMEOUT_MS } from './gate.js';

/** How long an answer is given again for its key: a day, as Stripe's API keeps them. */
const IDEMPOTENCY_TTL_HOURS = 24;

export type Claim =
  | { readonly kind: 'claimed' | 'mismatch' | 'running' }
  | { readonly kind: 'replay'; readonly status: number; readonly type: string; readonly body: string };

export class IdempotencyKeys {
  constructor(
    private readonly pool: pg.Pool,
    private readonly clock: Clock,
  ) {}

  /**
   * Claims a key for a request, or finds it taken: answered (a replay), by another request (the fingerprint of its
   * operation, surface, format and parameters differs), or by one still running. A claim left by a request that will
   * not finish (its instance gone, or older than a reservation lives) is taken over.
   */
  async claim(workspaceId: string, key: string, fingerprint: string, requestId: string): Promise<Claim> {
    const { rows } = await this.pool.query<{
      outcome: Claim['kind'];
      status: number;
      content_type: string;
      body: string;
    }>({
      name: 'idempotency_claim',
      text: `SELECT * FROM idempotency_claim($1, $2, $3, $4, $5, make_interval(hours => $6),
                                            make_interval(secs => $7))`,
      values: [
        workspaceId,
        key,
        fingerprint,
        requestId,
        this.clock.now(),
        IDEMPOTENCY_TTL_HOURS,
        RESERVATION_TIMEOUT_MS / 1000,
      ],
    });
    const r = rows[0]!;
    return r.outcome === 'replay'
      ? { kind: 'replay', status: r.status, type: r.content_type, body: r.body }
      : { kind: r.outcome };
  }

  /**
   * Gives up the claim of a request that was not charged (refused or failed), so that its key is free for a
   * retry. A claim the database did not take back stays until its instance is gone or it is stale.
   */
  async release(workspaceId: string, key: string, requestId: string, onError: (err: unknown) => void): Promise<void> {
    await this.pool
      .query(
        'DELETE FROM idempotent_requests WHERE workspace_id = $1 AND key = $2 AND request_id = $3 AND status IS NULL',
        [workspaceId, key, requestId],
      )
      .catch(onError);
  }
}

/** Forgets answers older than the TTL (a replay no longer finds them anyway). */
export async function purgeIdempotentRequests(pool: pg.Pool, now: Date): Promise<number> {
  const { rowCount } = await pool.query(
    'DELETE FROM idempotent_requests WHERE created_at < $1::timestamptz - make_interval(hours => $2)',
    [now, IDEMPOTENCY_TTL_HOURS],
  );
  return rowCount ?? 0;
}
