-- Several requests of one key through api_gate in one transaction, in the order given, each seeing
-- the ones before it exactly as if they had come one by one. The workspace row is then locked once
-- and the commit shared: requests of one busy workspace arriving one by one queue for that row lock
-- in turn (about 450 a second on 2 cores, whatever the number of connections).
CREATE FUNCTION api_gate_batch(p_hash bytea, p_surface text[], p_reserve boolean[], p_lead_feed boolean[], p_csv boolean[],
                               p_now timestamptz[], p_request_id text[], p_trial_days integer, p_trial_cap bigint, p_test_credits bigint)
RETURNS TABLE (i integer, outcome text, workspace_id text, key_id text, key_kind text, plan text, per_minute integer,
               ledger_id bigint, credit_balance bigint, retry_after integer)
LANGUAGE plpgsql AS $$
BEGIN
  FOR j IN 1 .. cardinality(p_request_id) LOOP
    RETURN QUERY SELECT j, g.* FROM api_gate(p_hash, p_surface[j], p_reserve[j], p_lead_feed[j], p_csv[j], p_now[j], p_request_id[j],
                                          p_trial_days, p_trial_cap, p_test_credits) g;
  END LOOP;
END $$;
