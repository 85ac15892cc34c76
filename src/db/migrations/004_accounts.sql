-- Accounts: plans, workspaces, API keys, credit packs, the credit ledger and its reservations, request
-- logs, the people of the web app (users, members, invitations, mailed links, sessions), and the gate's functions (api_gate, api_gate_batch, api_settle) with the cycle and expiry
-- steps they take (docs/contract.md, "Authentication" and "Plans and credits"). The ledger is the
-- truth (append-only, signed entries); the counters on `workspaces` and `credit_packs` are kept equal
-- to its sums so a request needs one row lock and no aggregation. Every money rule runs inside
-- PostgreSQL, under that row lock, so concurrent requests and several server instances cannot spend a
-- credit twice.

-- Written from src/accounts/plans.ts at every start.
CREATE TABLE plans (
  slug            text PRIMARY KEY,
  monthly_credits bigint NOT NULL,
  per_minute      integer NOT NULL,
  rest            boolean NOT NULL,
  mcp             boolean NOT NULL,
  lead_feed       boolean NOT NULL,
  csv             boolean NOT NULL,
  overage         boolean NOT NULL
);

CREATE TABLE workspaces (
  id                  text PRIMARY KEY,
  name                text NOT NULL,
  plan                text NOT NULL REFERENCES plans (slug),
  subscription_status text NOT NULL DEFAULT 'active'
                      CHECK (subscription_status IN ('active', 'past_due', 'cancelled')),
  suspended           boolean NOT NULL DEFAULT false,
  per_minute_override integer CHECK (per_minute_override > 0),
  created_at          timestamptz NOT NULL,
  -- The monthly pool (the trial's one-time balance on the trial) and the cycle it belongs to.
  cycle_start         date NOT NULL,
  monthly_remaining   bigint NOT NULL,
  trial_capped_at     timestamptz,
  -- Test keys' own pool.
  test_cycle_start    date NOT NULL,
  test_remaining      bigint NOT NULL,
  overage_unbilled    bigint NOT NULL DEFAULT 0,
  -- Metered requests in usage_month, by live and test keys.
  usage_month         date NOT NULL,
  usage_live          bigint NOT NULL DEFAULT 0,
  usage_test          bigint NOT NULL DEFAULT 0,
  -- When the subscription was cancelled (docs/contract.md, "Billing routes").
  cancelled_at        timestamptz,
  -- The customer at the card processor (learnt from the first paid checkout, or set by the operator).
  stripe_customer_id  text,
  -- Overage accrued before 00:00 UTC of this day is on an invoice (null: never billed).
  overage_billed_through date,
  -- A downgrade waits for the next cycle: this plan replaces `plan` when the cycle turns (docs/billing.md).
  pending_plan        text REFERENCES plans (slug),
  -- The subscription at Stripe, and the creation time of the newest of its events applied (older ones
  -- arriving late change nothing).
  stripe_subscription_id text UNIQUE,
  stripe_synced_at    timestamptz
);

CREATE TABLE api_keys (
  id            text PRIMARY KEY,
  workspace_id  text NOT NULL REFERENCES workspaces (id),
  kind          text NOT NULL CHECK (kind IN ('live', 'test')),
  hash          bytea NOT NULL UNIQUE,
  hint          text NOT NULL,
  created_at    timestamptz NOT NULL,
  revoked_at    timestamptz,
  -- The name its creator gave it in the web app (null: made by the command line).
  name          text,
  -- The start of the minute of its last authenticated request (written at most once a minute).
  last_used_at  timestamptz
);
CREATE INDEX api_keys_workspace_idx ON api_keys (workspace_id);

CREATE TABLE credit_packs (
  id            bigserial PRIMARY KEY,
  workspace_id  text NOT NULL REFERENCES workspaces (id),
  slug          text NOT NULL,
  credits       bigint NOT NULL,
  remaining     bigint NOT NULL CHECK (remaining >= 0),
  purchased_at  timestamptz NOT NULL,
  expires_at    timestamptz NOT NULL,
  checkout_id   text UNIQUE,
  closed_at     timestamptz,
  closed_reason text
);
CREATE INDEX credit_packs_open_idx ON credit_packs (workspace_id, expires_at, id) WHERE closed_at IS NULL;

CREATE TABLE credit_ledger (
  id            bigserial PRIMARY KEY,
  workspace_id  text NOT NULL REFERENCES workspaces (id),
  at            timestamptz NOT NULL,
  kind          text NOT NULL CHECK (kind IN ('signup_grant', 'monthly_grant', 'monthly_expiry', 'pack_purchase',
                  'pack_expiry', 'pack_refund', 'consumption', 'overage', 'overage_payment', 'free_trial_expired_cap',
                  'refund', 'admin_adjustment')),
  pool          text NOT NULL CHECK (pool IN ('monthly', 'pack', 'overage', 'test')),
  amount        bigint NOT NULL,
  pack_id       bigint REFERENCES credit_packs (id),
  request_id    text,
  note          text
);
CREATE INDEX credit_ledger_workspace_idx ON credit_ledger (workspace_id, at);

CREATE FUNCTION credit_ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'credit_ledger is append-only: write a correcting entry instead';
END $$;
CREATE TRIGGER credit_ledger_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON credit_ledger
  FOR EACH STATEMENT EXECUTE FUNCTION credit_ledger_append_only();

-- A credit taken for a request that has not finished: settled (kept) or released (refunded) after.
-- One left behind by a process that died is released by the sweeper.
CREATE TABLE credit_reservations (
  ledger_id     bigint PRIMARY KEY REFERENCES credit_ledger (id),
  workspace_id  text NOT NULL,
  pool          text NOT NULL,
  pack_id       bigint,
  created_at    timestamptz NOT NULL,
  -- The server instance whose request holds it, from its connections' setting (null: a client that
  -- names none). An instance holds an advisory lock while it lives (src/db/instance.ts): once the lock
  -- is gone, so is every request of that instance, and its reservations are released at once.
  holder        integer DEFAULT nullif(current_setting('registry.instance', true), '')::integer
);
CREATE INDEX credit_reservations_created_idx ON credit_reservations (created_at);

-- Whether the instance `p_holder` is alive: it holds its advisory lock (class 7310010) on this database.
CREATE FUNCTION reservation_holder_alive(p_holder integer) RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT EXISTS (
    SELECT 1 FROM pg_locks
    WHERE locktype = 'advisory' AND granted AND classid = 7310010 AND objsubid = 2 AND objid::bigint = p_holder
      AND database = (SELECT oid FROM pg_database WHERE datname = current_database()))
$$;

-- One row per request (kept 30 days). Never the raw key.
CREATE TABLE request_logs (
  request_id    text PRIMARY KEY,
  at            timestamptz NOT NULL,
  workspace_id  text,
  key_id        text,
  -- A call of the web app's playground through the same-origin proxy: the signed-in user (no key).
  user_id       text,
  surface       text NOT NULL,
  method        text NOT NULL,
  route         text NOT NULL,
  status        integer NOT NULL,
  duration_ms   real NOT NULL,
  credits       integer NOT NULL,
  client_ip     text
);
CREATE INDEX request_logs_at_idx ON request_logs (at);
-- The account pages: a workspace's requests of the last 30 days, newest first (read backward, stopping at a page).
CREATE INDEX request_logs_workspace_idx ON request_logs (workspace_id, at, request_id) WHERE workspace_id IS NOT NULL;

-- Credits kept per workspace, UTC day and surface, for live keys and members (not test keys): the account's
-- usage chart. Added up from each batch of request logs as it is written (src/accounts/request-log.ts),
-- so a page reads a month in 31 rows however busy the workspace; purged with the logs.
CREATE TABLE usage_days (
  workspace_id  text NOT NULL,
  day           date NOT NULL,
  rest          bigint NOT NULL DEFAULT 0,
  mcp           bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (workspace_id, day)
);

-- The people of the web app (docs/web.md). An address is kept lower case: one account per mailbox.
CREATE TABLE users (
  id                  text PRIMARY KEY,
  email               text NOT NULL UNIQUE CHECK (email = lower(email)),
  -- scrypt, with its parameters and salt (src/accounts/passwords.ts).
  password_hash       text NOT NULL,
  created_at          timestamptz NOT NULL,
  email_verified_at   timestamptz,
  password_changed_at timestamptz NOT NULL
);

-- Who may act for a workspace: its one owner (who alone changes billing) and the members invited.
CREATE TABLE workspace_members (
  workspace_id  text NOT NULL REFERENCES workspaces (id),
  user_id       text NOT NULL REFERENCES users (id),
  role          text NOT NULL CHECK (role IN ('owner', 'member')),
  created_at    timestamptz NOT NULL,
  PRIMARY KEY (workspace_id, user_id)
);
CREATE INDEX workspace_members_user_idx ON workspace_members (user_id);
CREATE UNIQUE INDEX workspace_members_one_owner_idx ON workspace_members (workspace_id) WHERE role = 'owner';

-- An owner's invitation of an address to the workspace; the mailed link carries the token, only its hash is kept.
CREATE TABLE invitations (
  id            text PRIMARY KEY,
  workspace_id  text NOT NULL REFERENCES workspaces (id),
  email         text NOT NULL CHECK (email = lower(email)),
  token_hash    bytea NOT NULL UNIQUE,
  invited_by    text NOT NULL REFERENCES users (id),
  created_at    timestamptz NOT NULL,
  expires_at    timestamptz NOT NULL,
  accepted_at   timestamptz,
  revoked_at    timestamptz
);
CREATE INDEX invitations_workspace_idx ON invitations (workspace_id, created_at);

-- Single-use mailed links: verifying the address, resetting the password. Only the token's hash is kept.
CREATE TABLE email_tokens (
  token_hash    bytea PRIMARY KEY,
  user_id       text NOT NULL REFERENCES users (id),
  purpose       text NOT NULL CHECK (purpose IN ('verify', 'reset')),
  created_at    timestamptz NOT NULL,
  expires_at    timestamptz NOT NULL,
  used_at       timestamptz
);
CREATE INDEX email_tokens_user_idx ON email_tokens (user_id, purpose);

-- Signed-in browsers. The cookie carries a random token; only its hash is kept, so a copy of this table
-- signs no one in. Logging out deletes the row; a password change deletes every row of the user.
CREATE TABLE web_sessions (
  token_hash    bytea PRIMARY KEY,
  user_id       text NOT NULL REFERENCES users (id),
  -- The workspace the pages show (one the user is a member of).
  workspace_id  text REFERENCES workspaces (id),
  -- The secret its CSRF tokens are made from (@fastify/csrf).
  csrf_secret   text NOT NULL,
  created_at    timestamptz NOT NULL,
  expires_at    timestamptz NOT NULL
);
CREATE INDEX web_sessions_user_idx ON web_sessions (user_id);
CREATE INDEX web_sessions_expires_idx ON web_sessions (expires_at);

CREATE FUNCTION month_start(p_now timestamptz) RETURNS date LANGUAGE sql IMMUTABLE AS $$
  SELECT date_trunc('month', p_now AT TIME ZONE 'UTC')::date
$$;

CREATE FUNCTION utc_midnight(p_day date) RETURNS timestamptz LANGUAGE sql IMMUTABLE AS $$
  SELECT p_day::timestamp AT TIME ZONE 'UTC'
$$;

-- Moves a workspace into the cycle containing p_now: a downgrade waiting for it takes effect, unused
-- monthly credits are dropped and the plan's grant lands (the trial keeps its one-time balance; a
-- cancelled subscription gets none), and the test pool starts again. Idempotent: a workspace already
-- in that cycle is left alone.
CREATE FUNCTION workspace_cycle(p_ws text, p_now timestamptz, p_test_credits bigint) RETURNS boolean
  LANGUAGE plpgsql AS $$
DECLARE
  w workspaces;
  credits bigint;
  m date := month_start(p_now);
  moved boolean := false;
BEGIN
  SELECT * INTO w FROM workspaces WHERE id = p_ws FOR UPDATE;
  IF w.cycle_start < m THEN
    IF w.pending_plan IS NOT NULL THEN
      UPDATE workspaces SET plan = w.pending_plan, pending_plan = NULL WHERE id = p_ws;
      w.plan := w.pending_plan;
    END IF;
    IF w.plan <> 'free_trial' THEN
      SELECT CASE WHEN w.subscription_status = 'cancelled' THEN 0 ELSE monthly_credits END INTO credits FROM plans WHERE slug = w.plan;
      IF w.monthly_remaining <> 0 THEN
        INSERT INTO credit_ledger (workspace_id, at, kind, pool, amount, note)
        VALUES (p_ws, utc_midnight(m), 'monthly_expiry', 'monthly', -w.monthly_remaining, 'unused credits of the cycle from ' || w.cycle_start);
      END IF;
      IF credits > 0 THEN
        INSERT INTO credit_ledger (workspace_id, at, kind, pool, amount, note)
        VALUES (p_ws, utc_midnight(m), 'monthly_grant', 'monthly', credits, 'cycle from ' || m);
      END IF;
      UPDATE workspaces SET monthly_remaining = credits, cycle_start = m WHERE id = p_ws;
    ELSE
      UPDATE workspaces SET cycle_start = m WHERE id = p_ws;
    END IF;
    moved := true;
  END IF;
  IF w.test_cycle_start < m THEN
    IF w.test_remaining <> 0 THEN
      INSERT INTO credit_ledger (workspace_id, at, kind, pool, amount, note)
      VALUES (p_ws, utc_midnight(m), 'monthly_expiry', 'test', -w.test_remaining, 'unused test credits');
    END IF;
    INSERT INTO credit_ledger (workspace_id, at, kind, pool, amount, note)
    VALUES (p_ws, utc_midnight(m), 'monthly_grant', 'test', p_test_credits, 'test pool, cycle from ' || m);
    UPDATE workspaces SET test_remaining = p_test_credits, test_cycle_start = m WHERE id = p_ws;
    moved := true;
  END IF;
  RETURN moved;
END $$;

-- Closes the packs of a workspace (or of all, p_ws null) whose expiry has come, with a ledger entry
-- for what was left in each.
CREATE FUNCTION expire_packs(p_ws text, p_now timestamptz) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  p credit_packs;
  n integer := 0;
BEGIN
  FOR p IN
    SELECT * FROM credit_packs
    WHERE closed_at IS NULL AND expires_at <= p_now AND (p_ws IS NULL OR workspace_id = p_ws)
    ORDER BY id FOR UPDATE
  LOOP
    IF p.remaining > 0 THEN
      INSERT INTO credit_ledger (workspace_id, at, kind, pool, amount, pack_id, note)
      VALUES (p.workspace_id, p.expires_at, 'pack_expiry', 'pack', -p.remaining, p.id, p.slug || ' pack expired');
    END IF;
    UPDATE credit_packs SET remaining = 0, closed_at = p.expires_at, closed_reason = 'expired' WHERE id = p.id;
    n := n + 1;
  END LOOP;
  RETURN n;
END $$;

-- The gate of a request, in one round trip: authenticate the key's hash (or, p_hash null, take the
-- workspace p_workspace of a signed-in member calling through the same-origin proxy: its live credits,
-- no key), check the surface, and, when p_reserve, apply the plan gate and reserve one credit in the
-- spending order of docs/contract.md, "Plans and credits". A key's last use is kept to the minute.
-- Overage accrues only on an active subscription; a cancelled one with nothing left answers 402.
-- outcome: ok | unauthorized | rest_disabled | mcp_disabled | forbidden | payment_required | quota_exhausted
CREATE FUNCTION api_gate(p_hash bytea, p_workspace text, p_surface text, p_reserve boolean, p_lead_feed boolean, p_csv boolean,
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
  pack credit_packs;
  use_pool text;
  use_kind text := 'consumption';
  entry bigint;
  capped bigint;
  no_renewal boolean;
  to_next_cycle integer := ceil(extract(epoch FROM utc_midnight((m + interval '1 month')::date) - p_now))::integer;
BEGIN
  IF p_hash IS NOT NULL THEN
    SELECT * INTO k FROM api_keys WHERE hash = p_hash;
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
        UPDATE workspaces SET overage_unbilled = overage_unbilled + 1 WHERE id = w.id;
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

-- Settles a reservation: kept (p_release false) or refunded with a ledger entry. Settling twice,
-- or a reservation the sweeper already released, changes nothing.
CREATE FUNCTION api_settle(p_ledger_id bigint, p_release boolean, p_now timestamptz) RETURNS boolean
  LANGUAGE plpgsql AS $$
DECLARE
  r credit_reservations;
BEGIN
  DELETE FROM credit_reservations WHERE ledger_id = p_ledger_id RETURNING * INTO r;
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  IF p_release THEN
    INSERT INTO credit_ledger (workspace_id, at, kind, pool, amount, pack_id, note)
    VALUES (r.workspace_id, p_now, 'refund', r.pool, 1, r.pack_id, 'request not served: reverses entry ' || p_ledger_id);
    IF r.pool = 'monthly' THEN
      UPDATE workspaces SET monthly_remaining = monthly_remaining + 1, usage_live = greatest(usage_live - 1, 0) WHERE id = r.workspace_id;
    ELSIF r.pool = 'pack' THEN
      UPDATE credit_packs SET remaining = remaining + 1 WHERE id = r.pack_id;
      UPDATE workspaces SET usage_live = greatest(usage_live - 1, 0) WHERE id = r.workspace_id;
    ELSIF r.pool = 'overage' THEN
      UPDATE workspaces SET overage_unbilled = overage_unbilled - 1, usage_live = greatest(usage_live - 1, 0) WHERE id = r.workspace_id;
    ELSE
      UPDATE workspaces SET test_remaining = test_remaining + 1, usage_test = greatest(usage_test - 1, 0) WHERE id = r.workspace_id;
    END IF;
  END IF;
  RETURN true;
END $$;

-- Several requests of one key through the gate in one transaction, in the order given, each seeing
-- the ones before it exactly as if they had come one by one: the workspace row is locked once and the
-- commit shared (one by one, a busy workspace's requests queue for that row lock, about 450 a second
-- on 2 cores). The common case goes all at once: a live key, every request valid, allowed and
-- reserving, in one month, and the monthly credits covering them all: one update of the workspace and
-- one insert each of ledger entries and reservations, instead of some ten statements per request.
-- The answers, the ledger and the counters are those of the requests one by one: packs that have
-- expired by the last request are closed first (their entries are dated at their expiry). Any other
-- batch goes through api_gate request by request.
CREATE FUNCTION api_gate_batch(p_hash bytea, p_workspace text, p_surface text[], p_reserve boolean[], p_lead_feed boolean[],
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
