-- Settlement before the answer (docs/contract.md, "What a client can rely on"): a charged answer's credit is kept,
-- with its request-log row and its daily usage, in one committed transaction before a byte of it is sent (the
-- statement is src/accounts/settlement.ts's); an answer the server knows did not reach its client is refunded after. Idempotency keys keep a copy of each such answer
-- for 24 hours, so that a retry gets it again for free.

-- A refund names the charge it reverses, and a charge is reversed at most once (the sweeper, a failed request and
-- an undelivered answer may all try).
ALTER TABLE credit_ledger ADD COLUMN reverses bigint;
CREATE UNIQUE INDEX credit_ledger_reverses_idx ON credit_ledger (reverses) WHERE reverses IS NOT NULL;

-- Gives back the credit of one charge (a consumption or overage entry of -1), once; false when it was not such a
-- charge or is already given back. The counters move with the ledger, as in api_gate.
CREATE FUNCTION refund_charge(p_entry bigint, p_now timestamptz, p_note text) RETURNS boolean
  LANGUAGE plpgsql AS $$
DECLARE
  e credit_ledger;
BEGIN
  SELECT * INTO e FROM credit_ledger WHERE id = p_entry;
  IF NOT FOUND OR e.amount <> -1 OR e.kind NOT IN ('consumption', 'overage') THEN
    RETURN false;
  END IF;
  INSERT INTO credit_ledger (workspace_id, at, kind, pool, amount, pack_id, note, reverses)
  VALUES (e.workspace_id, p_now, 'refund', e.pool, 1, e.pack_id, p_note || ': reverses entry ' || p_entry, p_entry)
  ON CONFLICT (reverses) WHERE reverses IS NOT NULL DO NOTHING;
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  IF e.pool = 'monthly' THEN
    UPDATE workspaces SET monthly_remaining = monthly_remaining + 1, usage_live = greatest(usage_live - 1, 0) WHERE id = e.workspace_id;
  ELSIF e.pool = 'pack' THEN
    UPDATE credit_packs SET remaining = remaining + 1 WHERE id = e.pack_id;
    UPDATE workspaces SET usage_live = greatest(usage_live - 1, 0) WHERE id = e.workspace_id;
  ELSIF e.pool = 'overage' THEN
    UPDATE workspaces SET overage_unbilled = overage_unbilled - 1, usage_live = greatest(usage_live - 1, 0) WHERE id = e.workspace_id;
  ELSE
    UPDATE workspaces SET test_remaining = test_remaining + 1, usage_test = greatest(usage_test - 1, 0) WHERE id = e.workspace_id;
  END IF;
  RETURN true;
END $$;

-- Settles a reservation: kept (p_release false) or refunded. Settling twice, or a reservation the sweeper already
-- released, changes nothing; false then.
CREATE OR REPLACE FUNCTION api_settle(p_ledger_id bigint, p_release boolean, p_now timestamptz) RETURNS boolean
  LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM credit_reservations WHERE ledger_id = p_ledger_id;
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  IF p_release THEN
    PERFORM refund_charge(p_ledger_id, p_now, 'request not served');
  END IF;
  RETURN true;
END $$;

-- Instances a sweep found without their lock, and since when. A restarted database drops every lock until the
-- instances take them again (in milliseconds): their reservations are released only once the lock has been missing
-- for the grace, so that requests still being served are not refunded.
CREATE TABLE missing_holders (
  holder  integer PRIMARY KEY,
  since   timestamptz NOT NULL
);

-- Releases the reservations of requests that will never finish: those older than p_timeout, and those of an
-- instance whose lock has been missing for p_grace. Returns how many.
CREATE FUNCTION sweep_reservations(p_now timestamptz, p_timeout interval, p_grace interval) RETURNS integer
  LANGUAGE plpgsql AS $$
DECLARE
  n integer;
BEGIN
  DELETE FROM missing_holders m
  WHERE reservation_holder_alive(m.holder) OR NOT EXISTS (SELECT 1 FROM credit_reservations r WHERE r.holder = m.holder);
  INSERT INTO missing_holders (holder, since)
  SELECT DISTINCT r.holder, p_now FROM credit_reservations r
  WHERE r.holder IS NOT NULL AND NOT reservation_holder_alive(r.holder)
  ON CONFLICT (holder) DO NOTHING;
  SELECT count(*) FILTER (WHERE api_settle(r.ledger_id, true, p_now)) INTO n
  FROM credit_reservations r
  WHERE r.created_at < p_now - p_timeout
     OR r.holder IN (SELECT m.holder FROM missing_holders m WHERE m.since <= p_now - p_grace);
  RETURN n;
END $$;

-- An answer given once under an Idempotency-Key, kept 24 hours: while its request runs, `status` is null and the
-- row is the request's claim on the key (given up when the request fails, taken over when its instance is gone).
CREATE TABLE idempotent_requests (
  workspace_id  text NOT NULL,
  key           text NOT NULL,
  -- The operation, surface, format and parameters, hashed: the same key with another request is a conflict.
  fingerprint   text NOT NULL,
  request_id    text NOT NULL,
  created_at    timestamptz NOT NULL,
  holder        integer,
  status        integer,
  content_type  text,
  body          text,
  PRIMARY KEY (workspace_id, key)
);
CREATE INDEX idempotent_requests_created_idx ON idempotent_requests (created_at);
CREATE INDEX idempotent_requests_request_idx ON idempotent_requests (request_id);

-- Claims an idempotency key: 'claimed' (run the request), 'replay' (with the answer given before), 'mismatch' (the
-- key was used with another request) or 'running' (its first request has not finished). A claim whose request's
-- instance is gone, or older than p_stale, is abandoned and taken over; one older than p_ttl is forgotten.
CREATE FUNCTION idempotency_claim(p_workspace text, p_key text, p_fingerprint text, p_request_id text,
                                  p_now timestamptz, p_ttl interval, p_stale interval)
RETURNS TABLE (outcome text, status integer, content_type text, body text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  me integer := nullif(current_setting('registry.instance', true), '')::integer;
  r idempotent_requests;
BEGIN
  INSERT INTO idempotent_requests (workspace_id, key, fingerprint, request_id, created_at, holder)
  VALUES (p_workspace, p_key, p_fingerprint, p_request_id, p_now, me)
  ON CONFLICT (workspace_id, key) DO NOTHING;
  IF FOUND THEN
    RETURN QUERY SELECT 'claimed'::text, NULL::integer, NULL::text, NULL::text;
    RETURN;
  END IF;
  SELECT * INTO r FROM idempotent_requests i WHERE i.workspace_id = p_workspace AND i.key = p_key FOR UPDATE;
  IF r.created_at > p_now - p_ttl THEN
    IF r.fingerprint <> p_fingerprint THEN
      RETURN QUERY SELECT 'mismatch'::text, NULL::integer, NULL::text, NULL::text;
      RETURN;
    ELSIF r.status IS NOT NULL THEN
      RETURN QUERY SELECT 'replay'::text, r.status, r.content_type, r.body;
      RETURN;
    ELSIF r.created_at > p_now - p_stale AND (r.holder IS NULL OR reservation_holder_alive(r.holder)) THEN
      RETURN QUERY SELECT 'running'::text, NULL::integer, NULL::text, NULL::text;
      RETURN;
    END IF;
  END IF;
  UPDATE idempotent_requests i
  SET fingerprint = p_fingerprint, request_id = p_request_id, created_at = p_now, holder = me, status = NULL,
      content_type = NULL, body = NULL
  WHERE i.workspace_id = p_workspace AND i.key = p_key;
  RETURN QUERY SELECT 'claimed'::text, NULL::integer, NULL::text, NULL::text;
END $$;

-- An answer kept and then not delivered (its connection closed before it was written): its charges are refunded,
-- its log row says so (status 499, no credits), its usage is taken back and its idempotent copy dropped, so that a
-- retry runs (and is charged) again. Returns the credits given back.
CREATE FUNCTION api_undelivered(p_request_id text, p_entry bigint[], p_now timestamptz) RETURNS integer
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
  IF FOUND AND back_live > 0 AND l.workspace_id IS NOT NULL THEN
    UPDATE usage_days SET rest = greatest(rest - CASE WHEN l.surface = 'rest' THEN back_live ELSE 0 END, 0),
                          mcp = greatest(mcp - CASE WHEN l.surface = 'mcp' THEN back_live ELSE 0 END, 0)
    WHERE workspace_id = l.workspace_id AND day = (l.at AT TIME ZONE 'UTC')::date;
  END IF;
  DELETE FROM idempotent_requests WHERE request_id = p_request_id;
  RETURN back;
END $$;
