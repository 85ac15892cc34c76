-- A batch of one key's requests (api_gate_batch, migration 018) in the common case, all at once:
-- a live key, every request valid, allowed and reserving, in one month, and the workspace's monthly
-- credits covering them all. One update of the workspace and one insert each of the ledger entries
-- and reservations, instead of some ten statements per request (a batch of 16 took about 5 ms of
-- PL/pgSQL: the gate of one busy key went one batch at a time at about 1,100 requests a second).
-- The answers, the ledger and the counters are those of the requests one by one: packs that have
-- expired by the last request are closed first (their entries are dated at their expiry), and a
-- batch the shortcut does not cover goes through api_gate request by request as before.
CREATE OR REPLACE FUNCTION api_gate_batch(p_hash bytea, p_surface text[], p_reserve boolean[], p_lead_feed boolean[], p_csv boolean[],
                                          p_now timestamptz[], p_request_id text[], p_trial_days integer, p_trial_cap bigint, p_test_credits bigint)
RETURNS TABLE (i integer, outcome text, workspace_id text, key_id text, key_kind text, plan text, per_minute integer,
               ledger_id bigint, credit_balance bigint, retry_after integer)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  n integer := cardinality(p_request_id);
  last_now timestamptz := p_now[cardinality(p_request_id)];
  m date := month_start(p_now[cardinality(p_request_id)]);
  k api_keys;
  w workspaces;
  p plans;
  ids bigint[];
BEGIN
  SELECT * INTO k FROM api_keys WHERE hash = p_hash;
  IF FOUND AND k.revoked_at IS NULL AND k.kind = 'live' AND month_start(p_now[1]) = m
     AND NOT (false = ANY(p_reserve)) AND NOT (true = ANY(p_lead_feed)) AND NOT (true = ANY(p_csv)) THEN
    SELECT * INTO w FROM workspaces WHERE id = k.workspace_id FOR UPDATE;
    SELECT * INTO p FROM plans WHERE slug = w.plan;
    IF NOT w.suspended AND w.cycle_start >= m AND w.test_cycle_start >= m AND w.usage_month >= m AND w.monthly_remaining >= n
       AND (p.rest OR NOT ('rest' = ANY(p_surface))) AND (p.mcp OR NOT ('mcp' = ANY(p_surface)))
       AND (w.plan <> 'free_trial' OR w.trial_capped_at IS NOT NULL OR last_now < w.created_at + make_interval(days => p_trial_days)) THEN
      PERFORM expire_packs(w.id, last_now);
      UPDATE workspaces SET monthly_remaining = monthly_remaining - n, usage_live = usage_live + n WHERE id = w.id;
      ids := ARRAY(SELECT nextval(pg_get_serial_sequence('credit_ledger', 'id')) FROM generate_series(1, n));
      INSERT INTO credit_ledger (id, workspace_id, at, kind, pool, amount, request_id)
      SELECT ids[r], w.id, p_now[r], 'consumption', 'monthly', -1, p_request_id[r] FROM generate_series(1, n) r;
      INSERT INTO credit_reservations (ledger_id, workspace_id, pool, created_at)
      SELECT ids[r], w.id, 'monthly', p_now[r] FROM generate_series(1, n) r;
      RETURN QUERY SELECT r, 'ok'::text, w.id, k.id, k.kind, w.plan, coalesce(w.per_minute_override, p.per_minute), ids[r], NULL::bigint, NULL::integer
                   FROM generate_series(1, n) r;
      RETURN;
    END IF;
  END IF;
  FOR j IN 1 .. n LOOP
    RETURN QUERY SELECT j, g.* FROM api_gate(p_hash, p_surface[j], p_reserve[j], p_lead_feed[j], p_csv[j], p_now[j], p_request_id[j],
                                          p_trial_days, p_trial_cap, p_test_credits) g;
  END LOOP;
END $$;
