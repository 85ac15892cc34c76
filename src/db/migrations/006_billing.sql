-- Billing: checkouts of credit packs, overage invoices, and the cancelled subscription state.
-- The money rules stay in the ledger: a pack refund and a paid overage item each write an entry,
-- so the balance (the ledger's signed sum) is negative exactly while overage is unpaid.

ALTER TABLE workspaces DROP CONSTRAINT workspaces_subscription_status_check;
ALTER TABLE workspaces ADD CONSTRAINT workspaces_subscription_status_check
  CHECK (subscription_status IN ('active', 'past_due', 'cancelled'));
ALTER TABLE workspaces
  ADD COLUMN cancelled_at timestamptz,
  -- The customer at the card processor (learnt from the first paid checkout, or set by the operator).
  ADD COLUMN stripe_customer_id text,
  -- Overage accrued before 00:00 UTC of this day is on an invoice (null: never billed).
  ADD COLUMN overage_billed_through date;

ALTER TABLE credit_ledger DROP CONSTRAINT credit_ledger_kind_check;
ALTER TABLE credit_ledger ADD CONSTRAINT credit_ledger_kind_check
  CHECK (kind IN ('signup_grant', 'monthly_grant', 'monthly_expiry', 'pack_purchase', 'pack_expiry', 'pack_refund',
                  'consumption', 'overage', 'overage_payment', 'free_trial_expired_cap', 'refund', 'admin_adjustment'));

-- One row per checkout started; its unguessable id is the capability of the local checkout page.
CREATE TABLE checkouts (
  id            text PRIMARY KEY,
  workspace_id  text NOT NULL REFERENCES workspaces (id),
  slug          text NOT NULL,
  credits       bigint NOT NULL,
  amount_cents  integer NOT NULL CHECK (amount_cents > 0),
  currency      text NOT NULL,
  provider      text NOT NULL CHECK (provider IN ('local', 'stripe')),
  -- stripe: the Checkout Session id (the webhook finds the checkout by it).
  provider_ref  text UNIQUE,
  -- stripe: the PaymentIntent that paid, to refund it.
  payment_ref   text,
  status        text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'paid', 'refunded')),
  created_at    timestamptz NOT NULL,
  expires_at    timestamptz NOT NULL,
  paid_at       timestamptz,
  pack_id       bigint REFERENCES credit_packs (id),
  refunded_at   timestamptz,
  refund_ref    text,
  CHECK ((status = 'open') = (paid_at IS NULL) AND (status = 'open') = (pack_id IS NULL)),
  CHECK ((status = 'refunded') = (refunded_at IS NOT NULL))
);
CREATE INDEX checkouts_workspace_idx ON checkouts (workspace_id, created_at);

-- A workspace's invoice for one cycle (UTC month): it collects that month's daily overage items
-- while open, is issued when the month is over (or at once, as the final one, on cancellation).
CREATE TABLE invoices (
  id                text PRIMARY KEY,
  workspace_id      text NOT NULL REFERENCES workspaces (id),
  period_start      date NOT NULL,
  status            text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'issued', 'paid')),
  final             boolean NOT NULL DEFAULT false,
  created_at        timestamptz NOT NULL,
  issued_at         timestamptz,
  paid_at           timestamptz,
  stripe_invoice_id text
);
CREATE UNIQUE INDEX invoices_one_open_idx ON invoices (workspace_id) WHERE status = 'open';
CREATE INDEX invoices_workspace_idx ON invoices (workspace_id, period_start);

-- One line per workspace and UTC day with overage: amount_cents = ceil(credits / 10) * 5.
CREATE TABLE invoice_items (
  id                      bigserial PRIMARY KEY,
  invoice_id              text NOT NULL REFERENCES invoices (id),
  workspace_id            text NOT NULL REFERENCES workspaces (id),
  day                     date NOT NULL,
  credits                 bigint NOT NULL CHECK (credits > 0),
  amount_cents            bigint NOT NULL CHECK (amount_cents = ceil(credits / 10.0) * 5),
  created_at              timestamptz NOT NULL,
  paid_at                 timestamptz,
  stripe_invoice_item_id  text UNIQUE,
  UNIQUE (workspace_id, day)
);
CREATE INDEX invoice_items_invoice_idx ON invoice_items (invoice_id);
CREATE INDEX invoice_items_unpaid_idx ON invoice_items (workspace_id) WHERE paid_at IS NULL;

-- The cycle as in 003, except that a cancelled subscription gets no new grant: what is left of
-- the cycle it paid for is dropped at the next cycle's start.
CREATE OR REPLACE FUNCTION workspace_cycle(p_ws text, p_now timestamptz, p_test_credits bigint) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  w workspaces;
  credits bigint;
  m date := month_start(p_now);
  moved boolean := false;
BEGIN
  SELECT * INTO w FROM workspaces WHERE id = p_ws FOR UPDATE;
  IF w.cycle_start < m THEN
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

-- The gate as in 003 with two changes for cancellation: overage accrues only on an active
-- subscription (not past_due, not cancelled), and a cancelled workspace with nothing left to spend
-- is answered like the exhausted trial (402: buy a pack or subscribe), since no new cycle will
-- bring credits back.
CREATE OR REPLACE FUNCTION api_gate(p_hash bytea, p_surface text, p_reserve boolean, p_lead_feed boolean, p_csv boolean,
                         p_now timestamptz, p_request_id text, p_trial_days integer, p_trial_cap bigint, p_test_credits bigint)
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
  SELECT * INTO k FROM api_keys WHERE hash = p_hash;
  IF NOT FOUND OR k.revoked_at IS NOT NULL THEN
    RETURN QUERY SELECT 'unauthorized', NULL::text, NULL::text, NULL::text, NULL::text, NULL::integer, NULL::bigint, NULL::bigint, NULL::integer;
    RETURN;
  END IF;
  SELECT * INTO w FROM workspaces WHERE id = k.workspace_id;
  IF w.suspended THEN
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
