-- Issue 65: keys that can be renamed and rolled, usage per key, and the workspace's audit log.

-- A rolled key: its previous secret keeps authenticating until previous_until (the grace its member chose), then
-- stops. The gate looks a hash up as a current secret first (the one probe an ordinary key has always cost) and only
-- when no key has it as a previous secret in its grace, in the same function call: no round trip is added.
ALTER TABLE api_keys ADD COLUMN previous_hash bytea;
ALTER TABLE api_keys ADD COLUMN previous_hint text;
ALTER TABLE api_keys ADD COLUMN previous_until timestamptz;
CREATE UNIQUE INDEX api_keys_previous_hash_idx ON api_keys (previous_hash) WHERE previous_hash IS NOT NULL;

-- Usage per key: the daily usage rows the request logs already add up (src/accounts/request-log.ts, the settlement's
-- statement) are kept per key, so that a key's month is read from its 31 rows at most and the API does no more work.
-- key_id '' holds the members' calls through the playground, and every row written before this file.
-- rest and mcp stay the credits kept by live keys and members (the chart); requests counts every logged request of
-- the key, any status, and credits every credit it kept, test keys' included.
ALTER TABLE usage_days ADD COLUMN key_id text NOT NULL DEFAULT '';
ALTER TABLE usage_days ADD COLUMN requests bigint NOT NULL DEFAULT 0;
ALTER TABLE usage_days ADD COLUMN credits bigint NOT NULL DEFAULT 0;
UPDATE usage_days SET credits = rest + mcp;
ALTER TABLE usage_days DROP CONSTRAINT usage_days_pkey;
ALTER TABLE usage_days ADD PRIMARY KEY (workspace_id, day, key_id);

-- An undelivered answer's credits are taken back from its key's row of the day (as in 008, per key now).
CREATE OR REPLACE FUNCTION api_undelivered(p_request_id text, p_entry bigint[], p_now timestamptz) RETURNS integer
  LANGUAGE plpgsql AS $$
DECLARE
  back integer;
  back_live integer;
  l request_logs;
BEGIN
  SELECT count(*), count(*) FILTER (WHERE e.pool <> 'test') INTO back, back_live
  FROM unnest(p_entry) x(entry) JOIN credit_ledger e ON e.id = x.entry AND e.request_id = p_request_id
  WHERE refund_charge(x.entry, p_now, 'answer not delivered');
  DELETE FROM credit_reservations WHERE ledger_id = ANY(p_entry)
    AND ledger_id IN (SELECT id FROM credit_ledger WHERE id = ANY(p_entry) AND request_id = p_request_id);
  UPDATE request_logs SET status = 499, credits = 0 WHERE request_id = p_request_id
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

-- Who did what to a workspace: keys, members, billing, webhooks (docs/web.md, "Audit log"). Written in the
-- transaction of the change it records; read newest first, a page at a time, on its own index.
CREATE TABLE audit_events (
  id            bigserial PRIMARY KEY,
  workspace_id  text NOT NULL REFERENCES workspaces (id),
  at            timestamptz NOT NULL,
  -- user: a member in the web app (or the playground); key: an API key; operator: the command line; system: the card
  -- processor's events and the service's own jobs.
  actor_kind    text NOT NULL CHECK (actor_kind IN ('user', 'key', 'operator', 'system')),
  -- The user's or key's id (null for the operator and the system).
  actor_id      text,
  action        text NOT NULL,
  -- What was changed: a key, an address, an endpoint, a plan (its id or name).
  target        text,
  detail        text,
  client_ip     text
);
CREATE INDEX audit_events_workspace_idx ON audit_events (workspace_id, id);

-- The gate of docs/contract.md, "Plans and credits", as in 004, with the spending cap of 012 (an overage credit
-- that would take the month's overage past the cap is refused, 'cap_reached', retry_after = seconds to the next month,
-- under the same row lock and in the same update that reserves it) and the previous secret of a rolled key (above).
CREATE OR REPLACE FUNCTION api_gate(p_hash bytea, p_workspace text, p_surface text, p_reserve boolean, p_lead_feed boolean, p_csv boolean,
                         p_now timestamptz, p_request_id text, p_trial_days integer, p_trial_cap bigint,
                         p_test_credits bigint)
RETURNS TABLE (outcome text, workspace_id text, key_id text, key_kind text, plan text, per_minute integer,
               ledger_id bigint, credit_balance bigint, retry_after integer)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  k api_keys;
  w workspaces;
  p plans;
  m date := month_start(p_now);
  today date := (p_now AT TIME ZONE 'UTC')::date;
  pack credit_packs;
  use_pool text;
  use_kind text := 'consumption';
  entry bigint;
  capped bigint;
  no_renewal boolean;
  day_credits bigint;
  spent bigint;
  block_cents bigint;
  to_next_cycle integer := ceil(extract(epoch FROM utc_midnight((m + interval '1 month')::date) - p_now))::integer;
BEGIN
  IF p_hash IS NOT NULL THEN
    SELECT * INTO k FROM api_keys WHERE hash = p_hash;
    IF NOT FOUND THEN
      SELECT * INTO k FROM api_keys WHERE previous_hash = p_hash AND previous_until > p_now;
    END IF;
    IF NOT FOUND OR k.revoked_at IS NOT NULL THEN
      RETURN QUERY SELECT 'unauthorized', NULL::text, NULL::text, NULL::text, NULL::text, NULL::integer, NULL::bigint, NULL::bigint, NULL::integer;
      RETURN;
    END IF;
    IF k.last_used_at IS NULL OR k.last_used_at < date_trunc('minute', p_now) THEN
      UPDATE api_keys SET last_used_at = date_trunc('minute', p_now) WHERE id = k.id;
    END IF;
  ELSE
    k.workspace_id := p_workspace;
    k.kind := 'live';
  END IF;
  SELECT * INTO w FROM workspaces WHERE id = k.workspace_id;
  IF NOT FOUND OR w.suspended THEN
    RETURN QUERY SELECT 'unauthorized', NULL::text, NULL::text, NULL::text, NULL::text, NULL::integer, NULL::bigint, NULL::bigint, NULL::integer;
    RETURN;
  END IF;
  SELECT * INTO p FROM plans WHERE slug = w.plan;
  per_minute := coalesce(w.per_minute_override, p.per_minute);
  workspace_id := w.id; key_id := k.id; key_kind := k.kind; plan := w.plan;
  IF (p_surface = 'rest' AND NOT p.rest) OR (p_surface = 'mcp' AND NOT p.mcp) THEN
    outcome := p_surface || '_disabled';
    RETURN NEXT; RETURN;
  END IF;
  IF NOT p_reserve THEN
    outcome := 'ok';
    RETURN NEXT; RETURN;
  END IF;
  IF (p_lead_feed AND NOT p.lead_feed) OR (p_csv AND NOT p.csv) THEN
    outcome := 'forbidden';
    RETURN NEXT; RETURN;
  END IF;

  -- From here the workspace row is locked: requests of one workspace take their credits in turn.
  PERFORM workspace_cycle(w.id, p_now, p_test_credits);
  SELECT * INTO w FROM workspaces WHERE id = w.id FOR UPDATE;
  -- The cycle may have applied a downgrade: the new cycle's credits follow the new plan.
  SELECT * INTO p FROM plans WHERE slug = w.plan;
  IF w.usage_month < m THEN
    UPDATE workspaces SET usage_month = m, usage_live = 0, usage_test = 0 WHERE id = w.id;
  END IF;

  IF k.kind = 'test' THEN
    IF w.test_remaining <= 0 THEN
      outcome := 'quota_exhausted'; credit_balance := 0; retry_after := to_next_cycle;
      RETURN NEXT; RETURN;
    END IF;
    UPDATE workspaces SET test_remaining = test_remaining - 1, usage_test = usage_test + 1 WHERE id = w.id;
    use_pool := 'test';
  ELSE
    IF w.plan = 'free_trial' AND w.trial_capped_at IS NULL AND p_now >= w.created_at + make_interval(days => p_trial_days) THEN
      capped := least(w.monthly_remaining, p_trial_cap);
      INSERT INTO credit_ledger (workspace_id, at, kind, pool, amount, request_id, note)
      VALUES (w.id, p_now, 'free_trial_expired_cap', 'monthly', capped - w.monthly_remaining, p_request_id,
              'trial over: balance capped at min(remaining, ' || p_trial_cap || ')');
      UPDATE workspaces SET monthly_remaining = capped, trial_capped_at = p_now WHERE id = w.id;
      w.monthly_remaining := capped;
    END IF;
    PERFORM expire_packs(w.id, p_now);
    IF w.monthly_remaining > 0 THEN
      UPDATE workspaces SET monthly_remaining = monthly_remaining - 1 WHERE id = w.id;
      use_pool := 'monthly';
    ELSE
      SELECT * INTO pack FROM credit_packs cp
      WHERE cp.workspace_id = w.id AND cp.closed_at IS NULL AND cp.remaining > 0 AND cp.expires_at > p_now
      ORDER BY cp.expires_at, cp.id LIMIT 1 FOR UPDATE;
      IF FOUND THEN
        UPDATE credit_packs SET remaining = remaining - 1 WHERE id = pack.id;
        use_pool := 'pack';
      ELSIF p.overage AND w.subscription_status = 'active' THEN
        -- Priced as billing prices a day's item (ceil(credits / 10) * 5 cents, src/accounts/catalog.ts's
        -- OVERAGE_BLOCK_*, as the invoice_items CHECK): a credit that starts a new block costs 5 cents.
        day_credits := CASE WHEN w.cap_day = today THEN w.cap_day_credits ELSE 0 END;
        spent := CASE WHEN w.cap_day >= m THEN w.cap_spent_cents ELSE 0 END;
        block_cents := CASE WHEN day_credits % 10 = 0 THEN 5 ELSE 0 END;
        IF w.overage_cap_cents IS NOT NULL AND spent + block_cents > w.overage_cap_cents THEN
          outcome := 'cap_reached'; credit_balance := 0; retry_after := to_next_cycle;
          RETURN NEXT; RETURN;
        END IF;
        UPDATE workspaces SET overage_unbilled = overage_unbilled + 1, cap_day = today,
          cap_day_credits = day_credits + 1, cap_spent_cents = spent + block_cents
        WHERE id = w.id;
        use_pool := 'overage'; use_kind := 'overage';
      ELSE
        no_renewal := w.plan = 'free_trial' OR w.subscription_status = 'cancelled';
        outcome := CASE WHEN no_renewal THEN 'payment_required' ELSE 'quota_exhausted' END;
        credit_balance := 0;
        retry_after := CASE WHEN no_renewal THEN NULL ELSE to_next_cycle END;
        RETURN NEXT; RETURN;
      END IF;
    END IF;
    UPDATE workspaces SET usage_live = usage_live + 1 WHERE id = w.id;
  END IF;

  INSERT INTO credit_ledger (workspace_id, at, kind, pool, amount, pack_id, request_id)
  VALUES (w.id, p_now, use_kind, use_pool, -1, pack.id, p_request_id)
  RETURNING id INTO entry;
  INSERT INTO credit_reservations (ledger_id, workspace_id, pool, pack_id, created_at)
  VALUES (entry, w.id, use_pool, pack.id, p_now);
  outcome := 'ok'; ledger_id := entry;
  RETURN NEXT;
END $$;

CREATE OR REPLACE FUNCTION api_gate_batch(p_hash bytea, p_workspace text, p_surface text[], p_reserve boolean[], p_lead_feed boolean[],
                               p_csv boolean[], p_now timestamptz[], p_request_id text[], p_trial_days integer,
                               p_trial_cap bigint, p_test_credits bigint)
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
  known boolean := true;
BEGIN
  IF p_hash IS NOT NULL THEN
    SELECT * INTO k FROM api_keys WHERE hash = p_hash;
    IF NOT FOUND THEN
      -- The batch's last moment: a secret whose grace ends within the batch goes request by request below.
      SELECT * INTO k FROM api_keys WHERE previous_hash = p_hash AND previous_until > last_now;
    END IF;
    known := FOUND;
  ELSE
    k.workspace_id := p_workspace;
    k.kind := 'live';
  END IF;
  IF known AND k.revoked_at IS NULL AND k.kind = 'live' AND month_start(p_now[1]) = m
     AND NOT (false = ANY(p_reserve)) AND NOT (true = ANY(p_lead_feed)) AND NOT (true = ANY(p_csv)) THEN
    SELECT * INTO w FROM workspaces WHERE id = k.workspace_id FOR UPDATE;
    SELECT * INTO p FROM plans WHERE slug = w.plan;
    IF FOUND AND NOT w.suspended AND w.cycle_start >= m AND w.test_cycle_start >= m AND w.usage_month >= m AND w.monthly_remaining >= n
       AND (p.rest OR NOT ('rest' = ANY(p_surface))) AND (p.mcp OR NOT ('mcp' = ANY(p_surface)))
       AND (w.plan <> 'free_trial' OR w.trial_capped_at IS NOT NULL OR last_now < w.created_at + make_interval(days => p_trial_days)) THEN
      PERFORM expire_packs(w.id, last_now);
      IF p_hash IS NOT NULL AND (k.last_used_at IS NULL OR k.last_used_at < date_trunc('minute', last_now)) THEN
        UPDATE api_keys SET last_used_at = date_trunc('minute', last_now) WHERE id = k.id;
      END IF;
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
    RETURN QUERY SELECT j, g.* FROM api_gate(p_hash, p_workspace, p_surface[j], p_reserve[j], p_lead_feed[j], p_csv[j], p_now[j], p_request_id[j],
                                          p_trial_days, p_trial_cap, p_test_credits) g;
  END LOOP;
END $$;
