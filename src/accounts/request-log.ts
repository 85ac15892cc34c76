// Request logs: one row per request, written in batches off the request path (a log is not money:
// a crash may lose the last second of rows, never a credit). Kept 30 days; a job purges older rows.
import type pg from 'pg';

export interface RequestLogRow {
  request_id: string;
  at: Date;
  workspace_id: string | null;
  key_id: string | null;
  user_id: string | null;
  test_key: boolean;
  surface: 'rest' | 'mcp' | 'keyless';
  method: string;
  route: string;
  status: number;
  duration_ms: number;
  credits: number;
  client_ip: string | null;
}

export const REQUEST_LOG_RETENTION_DAYS = 30;

export class RequestLog {
  private pending: RequestLogRow[] = [];
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly pool: pg.Pool,
    private readonly onError: (err: unknown) => void,
    private readonly everyMs = 1000,
    private readonly batch = 500,
  ) {}

  add(row: RequestLogRow): void {
    this.pending.push(row);
    if (this.pending.length >= this.batch) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.everyMs).unref();
  }

  /** Writes what is pending; resolves when every row added so far is written. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const rows = this.pending;
    this.pending = [];
    if (rows.length === 0) return this.flushing;
    this.flushing = this.flushing.then(() => this.write(rows)).catch(this.onError);
    return this.flushing;
  }

  private async write(rows: RequestLogRow[]): Promise<void> {
    // A request's last row wins (one statement may not update a row twice).
    const last = [...new Map(rows.map((r) => [r.request_id, r])).values()];
    const col = <K extends keyof RequestLogRow>(k: K): Array<RequestLogRow[K]> => last.map((r) => r[k]);
    // One statement: the logs and the daily usage they add up to are written together or not at all. A row its
    // charge's keep already wrote (docs/contract.md, "What a client can rely on") takes the answer's final status
    // and time, unless a refund has had it since (no credits: the refund's status stays); usage counts only the
    // rows inserted, so a request is never counted twice.
    // rest and mcp: the credits kept by live keys and members (the chart); requests and credits: every request of
    // the key, test keys' too (the keys page).
    await this.pool.query(
      `WITH given AS (
         SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
                              $8::int[], $9::real[], $10::int[], $11::text[], $12::text[], $13::boolean[])
           AS g(request_id, at, workspace_id, key_id, surface, method, route, status, duration_ms, credits, client_ip,
                user_id, test_key)),
       logged AS (
         INSERT INTO request_logs (request_id, at, workspace_id, key_id, surface, method, route, status, duration_ms,
                                   credits, client_ip, user_id)
         SELECT request_id, at, workspace_id, key_id, surface, method, route, status, duration_ms, credits, client_ip,
                user_id FROM given
         ON CONFLICT (request_id) DO UPDATE SET status = excluded.status, duration_ms = excluded.duration_ms
           WHERE request_logs.credits > 0 AND excluded.credits > 0
         -- xmax is 0 on a row this statement inserted, not on one it updated.
         RETURNING request_id, xmax = 0 AS inserted)
       INSERT INTO usage_days AS u (workspace_id, day, key_id, rest, mcp, requests, credits)
       SELECT g.workspace_id, (g.at AT TIME ZONE 'UTC')::date, coalesce(g.key_id, ''),
              coalesce(sum(g.credits) FILTER (WHERE g.surface = 'rest' AND NOT g.test_key AND g.credits > 0), 0),
              coalesce(sum(g.credits) FILTER (WHERE g.surface = 'mcp' AND NOT g.test_key AND g.credits > 0), 0),
              count(*), sum(greatest(g.credits, 0))
       FROM given g JOIN logged USING (request_id)
       WHERE logged.inserted AND g.workspace_id IS NOT NULL AND g.surface <> 'keyless'
       GROUP BY 1, 2, 3
       ON CONFLICT (workspace_id, day, key_id) DO UPDATE SET rest = u.rest + excluded.rest,
         mcp = u.mcp + excluded.mcp, requests = u.requests + excluded.requests, credits = u.credits + excluded.credits`,
      [
        col('request_id'),
        col('at'),
        col('workspace_id'),
        col('key_id'),
        col('surface'),
        col('method'),
        col('route'),
        col('status'),
        col('duration_ms'),
        col('credits'),
        col('client_ip'),
        col('user_id'),
        col('test_key'),
      ],
    );
  }
}

export async function findRequestLog(pool: pg.Pool, requestId: string): Promise<Record<string, unknown> | null> {
  const { rows } = await pool.query(
    `SELECT request_id, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at, workspace_id, key_id,
            user_id, surface, method, route, status, duration_ms, credits, client_ip
     FROM request_logs WHERE request_id = $1`,
    [requestId],
  );
  return rows[0] ?? null;
}

export async function purgeRequestLogs(pool: pg.Pool, now: Date): Promise<number> {
  const { rowCount } = await pool.query(
    `DELETE FROM request_logs WHERE at < $1::timestamptz - make_interval(days => $2)`,
    [now, REQUEST_LOG_RETENTION_DAYS],
  );
  // The daily usage outlives the logs by a month, so the chart always has the whole of this month.
  await pool.query(`DELETE FROM usage_days WHERE day < ($1::timestamptz - make_interval(days => $2))::date`, [
    now,
    2 * REQUEST_LOG_RETENTION_DAYS,
  ]);
  return rowCount ?? 0;
}
