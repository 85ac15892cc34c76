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
    const col = <K extends keyof RequestLogRow>(k: K): Array<RequestLogRow[K]> => rows.map((r) => r[k]);
    const days = usageDays(rows);
    // One statement: the logs and the daily usage they add up to are written together or not at all.
    await this.pool.query(
      `WITH logged AS (
         INSERT INTO request_logs (request_id, at, workspace_id, key_id, surface, method, route, status, duration_ms,
                                   credits, client_ip, user_id)
         SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
                              $8::int[], $9::real[], $10::int[], $11::text[], $12::text[])
         ON CONFLICT (request_id) DO NOTHING)
       INSERT INTO usage_days AS u (workspace_id, day, key_id, rest, mcp, requests, credits)
       SELECT * FROM unnest($13::text[], $14::date[], $15::text[], $16::bigint[], $17::bigint[], $18::bigint[],
                            $19::bigint[])
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
        days.map((d) => d.workspace),
        days.map((d) => d.day),
        days.map((d) => d.key),
        days.map((d) => d.rest),
        days.map((d) => d.mcp),
        days.map((d) => d.requests),
        days.map((d) => d.credits),
      ],
    );
  }
}

interface UsageDay {
  workspace: string;
  day: string;
  /** The key, or '' for a member's call. */
  key: string;
  /** Credits kept by live keys and members, by surface (the workspace's chart). */
  rest: number;
  mcp: number;
  /** Every request of the key and the credits it kept, test keys' too (the keys page). */
  requests: number;
  credits: number;
}

/** A batch added up per workspace, UTC day and key. */
function usageDays(rows: readonly RequestLogRow[]): UsageDay[] {
  const days = new Map<string, UsageDay>();
  for (const r of rows) {
    if (!r.workspace_id || r.surface === 'keyless') continue;
    const day = r.at.toISOString().slice(0, 10);
    const key = r.key_id ?? '';
    const id = `${r.workspace_id} ${day} ${key}`;
    const d = days.get(id) ?? { workspace: r.workspace_id, day, key, rest: 0, mcp: 0, requests: 0, credits: 0 };
    d.requests += 1;
    d.credits += Math.max(r.credits, 0);
    if (!r.test_key && r.credits > 0) d[r.surface] += r.credits;
    days.set(id, d);
  }
  return [...days.values()];
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
