-- A charge kept while its request is handled (docs/contract.md, "What a client can rely on"): the common answer's
-- credit, log row and daily usage commit beside the handler's read, not after it. When the answer then fails, or is
-- not delivered, the kept charge is refunded by one function for both, which also sets the log row's status and
-- duration (the row was written before either was known).

-- Refunds the charges of a request whose answer was kept and then not given (p_status: the failure's, or 499 when
-- its connection closed first) or whose keep may not have committed: its reservations are deleted, its charges
-- refunded once, its log row says p_status with no credits and its time until now, its usage is taken back and its
-- idempotent copy dropped, so that a retry runs (and is charged) again. Returns the credits given back.
CREATE FUNCTION api_refund_answer(p_request_id text, p_entry bigint[], p_now timestamptz, p_status integer,
                                  p_note text) RETURNS integer
  LANGUAGE plpgsql AS $$
DECLARE
  back integer;
  back_live integer;
  l request_logs;
BEGIN
  SELECT count(*), count(*) FILTER (WHERE e.pool <> 'test') INTO back, back_live
  FROM unnest(p_entry) x(entry) JOIN credit_ledger e ON e.id = x.entry AND e.request_id = p_request_id
  WHERE refund_charge(x.entry, p_now, p_note);
  DELETE FROM credit_reservations WHERE ledger_id = ANY(p_entry)
    AND ledger_id IN (SELECT id FROM credit_ledger WHERE id = ANY(p_entry) AND request_id = p_request_id);
  UPDATE request_logs
  SET status = p_status, credits = 0, duration_ms = greatest(extract(epoch FROM p_now - at) * 1000, duration_ms)
  WHERE request_id = p_request_id
  RETURNING * INTO l;
  IF FOUND AND back > 0 AND l.workspace_id IS NOT NULL THEN
    UPDATE usage_days SET rest = greatest(rest - CASE WHEN l.surface = 'rest' THEN back_live ELSE 0 END, 0),
                          mcp = greatest(mcp - CASE WHEN l.surface = 'mcp' THEN back_live ELSE 0 END, 0),
                          credits = greatest(credits - back, 0)
    WHERE workspace_id = l.workspace_id AND day = (l.at AT TIME ZONE 'UTC')::date AND key_id = coalesce(l.key_id, '');
  END IF;
  DELETE FROM idempotent_requests WHERE request_id = p_request_id;
  RETURN back;
END $$;

-- An undelivered answer is refunded by api_refund_answer with status 499.
DROP FUNCTION api_undelivered(text, bigint[], timestamptz);
