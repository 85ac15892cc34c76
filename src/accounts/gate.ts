// The accounts side of a request: who calls (authentication), whether their plan lets them, and
// the credit reserved before the handler runs (settled by src/accounts/settlement.ts). Both in SQL
// (src/db/migrations/004_accounts.sql) so that concurrent requests and instances stay exact;
// requests of one key that arrive while its previous check is in the database go in together.
import type pg from 'pg';
import type { Clock } from '../clock.js';
import { hashKey, type KeyKind } from './keys.js';
import type { Role } from './sessions.js';
import { TEST_KEY_MONTHLY_CREDITS, TRIAL_CAP, TRIAL_DAYS, type PlanSlug, type Surface } from './catalog.js';

export interface Caller {
  readonly workspaceId: string;
  /** Null for a signed-in member calling through the same-origin proxy (no key). */
  readonly keyId: string | null;
  /** The signed-in member, on the same-origin proxy; null for a key. */
  readonly userId: string | null;
  readonly keyKind: KeyKind;
  readonly plan: PlanSlug;
  readonly perMinute: number;
}

type GateOutcome =
  | 'ok'
  | 'unauthorized'
  | 'rest_disabled'
  | 'mcp_disabled'
  | 'forbidden'
  | 'payment_required'
  | 'quota_exhausted'
  /** The month's overage reached the workspace's spending cap (retryAfter: seconds to the next month). */
  | 'cap_reached';

export interface GateResult {
  readonly outcome: GateOutcome;
  readonly caller: Caller | null;
  /** The ledger entry of the reserved credit, to settle. */
  readonly reservation: number | null;
  readonly creditBalance: number | null;
  /** Seconds to the next cycle, when the monthly quota is exhausted or the spending cap reached. */
  readonly retryAfter: number | null;
}

/**
 * Who presents itself: an API key, or a member signed in to the web app calling through the same-origin
 * proxy (the session was checked by the caller; the gate takes the workspace's live credits).
 */
export type Credential = { readonly key: string } | { readonly member: MemberCall };

/** A member signed in to the web app, calling through the same-origin proxy (src/web/proxy-auth.ts). */
export interface MemberCall {
  readonly workspaceId: string;
  readonly userId: string;
}

/** That member with their role in the workspace (billing changes are the owner's). */
export interface SignedInMember extends MemberCall {
  readonly role: Role;
}

export interface GateRequest {
  readonly credential: Credential;
  readonly surface: Surface;
  /** Reserve a credit (a metered call whose parameters are valid). */
  readonly reserve: boolean;
  readonly leadFeed: boolean;
  readonly csv: boolean;
  readonly requestId: string;
}

interface GateRow {
  i: number;
  outcome: GateOutcome;
  workspace_id: string | null;
  key_id: string | null;
  key_kind: KeyKind | null;
  plan: PlanSlug | null;
  per_minute: number | null;
  ledger_id: number | null;
  credit_balance: number | null;
  retry_after: number | null;
}

/** Reservations older than this belong to a request that will not finish; the sweeper releases them. */
export const RESERVATION_TIMEOUT_MS = 5 * 60 * 1000;

/** The most requests of one key checked in one transaction. */
const MAX_BATCH = 64;

/**
 * Told the requests that may hold credits they never learned of: a check whose statement was sent may have committed
 * before its answer was lost (a database killed between the two); one that found no connection sent nothing. Their
 * instance lives on, so the sweeper would free those credits only after RESERVATION_TIMEOUT_MS; the settlement frees
 * them by request id instead.
 */
export type InDoubt = (requestIds: readonly string[]) => void;

interface Waiting {
  readonly req: GateRequest;
  readonly now: Date;
  resolve(result: GateResult): void;
  reject(err: unknown): void;
}

export class Gate {
  /** Requests waiting for their key's check in the database to end; a key is here while one runs. */
  private readonly waiting = new Map<string, Waiting[]>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly pepper: string,
    private readonly clock: Clock,
    private readonly inDoubt: InDoubt,
  ) {}

  /**
   * Checks a request. The first of a key goes to the database at once; those arriving meanwhile wait
   * and go together next, in arrival order (the SQL function api_gate_batch), so one busy workspace
   * takes its row lock and commits once per batch instead of once per request.
   */
  check(req: GateRequest): Promise<GateResult> {
    // A member's calls queue by workspace and user: the batch answers them all as that one caller.
    const c = req.credential;
    const queueKey = 'key' in c ? c.key : `member:${c.member.workspaceId}:${c.member.userId}`;
    return new Promise((resolve, reject) => {
      const entry: Waiting = { req, now: this.clock.now(), resolve, reject };
      const queue = this.waiting.get(queueKey);
      if (queue) queue.push(entry);
      else {
        this.waiting.set(queueKey, []);
        void this.run(queueKey, [entry]);
      }
    });
  }

  private async run(key: string, batch: Waiting[]): Promise<void> {
    const c = batch[0]!.req.credential;
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      // No connection, so no statement sent: nothing can have been reserved.
      for (const w of batch) w.reject(err);
      return this.next(key);
    }
    try {
      const { rows } = await client.query<GateRow>({
        name: 'api_gate_batch',
        // The batch commits without waiting for its WAL to reach the disk (this transaction only):
        // a crash of the database can then lose the last moments of reservations, i.e. requests served
        // and never charged, but never charge one twice (ledger entry and reservation go together).
        // The wait was about 40% of the round trip (1.2 ms against 0.75 at 12.6 million entities).
        text: `SELECT g.* FROM (SELECT set_config('synchronous_commit', 'off', true)) AS async_commit,
                 api_gate_batch($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) AS g`,
        values: [
          'key' in c ? hashKey(c.key, this.pepper) : null,
          'key' in c ? null : c.member.workspaceId,
          batch.map((w) => w.req.surface),
          batch.map((w) => w.req.reserve),
          batch.map((w) => w.req.leadFeed),
          batch.map((w) => w.req.csv),
          batch.map((w) => w.now),
          batch.map((w) => w.req.requestId),
          TRIAL_DAYS,
          TRIAL_CAP,
          TEST_KEY_MONTHLY_CREDITS,
        ],
      });
      client.release();
      const userId = 'key' in c ? null : c.member.userId;
      for (const r of rows) batch[r.i - 1]!.resolve(gateResult(r, userId));
    } catch (err) {
      client.release(); // a broken connection is the pool's to drop (it is no longer queryable)
      const reserving = batch.filter((w) => w.req.reserve).map((w) => w.req.requestId);
      if (reserving.length > 0) this.inDoubt(reserving);
      for (const w of batch) w.reject(err);
    }
    this.next(key);
  }

  /** Sends the key's waiting requests as the next batch, or forgets the key. */
  private next(key: string): void {
    const queue = this.waiting.get(key)!;
    if (queue.length === 0) this.waiting.delete(key);
    else void this.run(key, queue.splice(0, MAX_BATCH));
  }
}

function gateResult(r: GateRow, userId: string | null): GateResult {
  const caller: Caller | null = r.workspace_id
    ? {
        workspaceId: r.workspace_id,
        keyId: r.key_id,
        userId,
        keyKind: r.key_kind!,
        plan: r.plan!,
        perMinute: r.per_minute!,
      }
    : null;
  return {
    outcome: r.outcome,
    caller,
    reservation: r.ledger_id,
    creditBalance: r.credit_balance,
    retryAfter: r.retry_after,
  };
}

/**
 * A restarted database drops every instance's lock until it is taken again (milliseconds): an instance is judged
 * gone only once its lock has been missing this long, so that the requests it is serving are not refunded.
 */
const HOLDER_GRACE_MS = 2_000;

/**
 * Releases the reservations of requests that will never finish: those of an instance that is gone (its lock
 * released with its session: a crash, a kill) once the grace has passed, and any older than the timeout (a
 * request stuck in a live process, or made by a client that names no instance).
 */
export async function sweepReservations(pool: pg.Pool, now: Date): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(
    'SELECT sweep_reservations($1, make_interval(secs => $2), make_interval(secs => $3)) AS n',
    [now, RESERVATION_TIMEOUT_MS / 1000, HOLDER_GRACE_MS / 1000],
  );
  return rows[0]?.n ?? 0;
}
