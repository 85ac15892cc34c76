// The statements that keep charged answers' credits (src/accounts/settlement.ts): each one transaction, committed to
// the disk before the answers are sent.

/**
 * Keeps the credits of answers about to be sent, with their request-log rows, their daily usage and their idempotent
 * copies, in one statement (one transaction, committed to the disk). A request is kept only when every reservation it
 * holds is still there and is its own in the ledger (one the sweeper released, or a database crash lost and whose id
 * went to another request, means its answer must not be sent; its other reservations are refunded). Charges are
 * flattened: charge j belongs to request $2[j], a position in the request arrays $8 to $19. Answers the positions kept.
 */
export const KEEP_SQL = `
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
  INSERT INTO usage_days AS u (workspace_id, day, key_id, rest, mcp, requests, credits)
  SELECT workspace_id, (at AT TIME ZONE 'UTC')::date, coalesce(key_id, ''),
         coalesce(sum(credits) FILTER (WHERE surface = 'rest' AND NOT test_key), 0),
         coalesce(sum(credits) FILTER (WHERE surface = 'mcp' AND NOT test_key), 0), count(*), sum(credits)
  FROM kept WHERE workspace_id IS NOT NULL AND surface IN ('rest', 'mcp')
  GROUP BY 1, 2, 3
  ON CONFLICT (workspace_id, day, key_id) DO UPDATE SET rest = u.rest + excluded.rest, mcp = u.mcp + excluded.mcp,
    requests = u.requests + excluded.requests, credits = u.credits + excluded.credits),
copied AS (
  UPDATE idempotent_requests i SET status = e.status, content_type = e.type, body = e.body
  FROM e JOIN kept k ON k.i = e.req
  WHERE e.key IS NOT NULL AND i.workspace_id = k.workspace_id AND i.key = e.key AND i.request_id = k.request_id)
SELECT (SELECT array_agg(i::int) FROM kept) AS kept, (SELECT count(*) FROM refunded) AS refunds`;

/**
 * One answer with one charge and no idempotent copy: the same as KEEP_SQL for it. Its reservation, if still there
 * and its own in the ledger, is deleted; its log row and its day's usage written. Answers 1 when kept.
 */
export const KEEP_ONE_SQL = `
WITH gone AS (
  DELETE FROM credit_reservations r USING credit_ledger l
  WHERE r.ledger_id = $1 AND l.id = $1 AND l.request_id = $2
  RETURNING r.ledger_id),
logged AS (
  INSERT INTO request_logs (request_id, at, workspace_id, key_id, user_id, surface, method, route, status, duration_ms,
                            credits, client_ip)
  SELECT $2, $3, $4, $5, $6, $8, $9, $10, $11, $12, 1, $13 FROM gone
  ON CONFLICT (request_id) DO NOTHING),
used AS (
  INSERT INTO usage_days AS u (workspace_id, day, key_id, rest, mcp, requests, credits)
  SELECT $4, ($3::timestamptz AT TIME ZONE 'UTC')::date, coalesce($5::text, ''),
         CASE WHEN $8 = 'rest' AND NOT $7::boolean THEN 1 ELSE 0 END,
         CASE WHEN $8 = 'mcp' AND NOT $7::boolean THEN 1 ELSE 0 END, 1, 1
  FROM gone WHERE $4::text IS NOT NULL AND $8 IN ('rest', 'mcp')
  ON CONFLICT (workspace_id, day, key_id) DO UPDATE SET rest = u.rest + excluded.rest, mcp = u.mcp + excluded.mcp,
    requests = u.requests + excluded.requests, credits = u.credits + excluded.credits)
SELECT count(*)::int AS kept FROM gone`;
