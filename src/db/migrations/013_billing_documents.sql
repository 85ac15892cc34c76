-- Billing documents, billing details, low-balance alerts and the monthly spending cap on overage
-- (docs/billing.md, "Payment history", "Billing details", "Low-balance alerts", "Spending cap").

-- The workspace's billing details as the owner last set them; each document copies them when issued.
CREATE TABLE billing_details (
  workspace_id  text PRIMARY KEY REFERENCES workspaces (id),
  company       text NOT NULL,
  address       text NOT NULL,
  country       text NOT NULL,
  tax_id        text,
  email         text,
  updated_at    timestamptz NOT NULL
);

-- Who sells: one row, written from the configuration at every start (SELLER_*); documents copy it.
CREATE TABLE billing_seller (
  id       boolean PRIMARY KEY DEFAULT true CHECK (id),
  name     text NOT NULL,
  address  text,
  tax_id   text,
  email    text
);
INSERT INTO billing_seller (name) VALUES ('Registry Lookup');

-- Document numbers without gaps: the counter row is locked by the transaction that issues one, so a
-- rolled-back issue gives its number back (a sequence would skip it).
CREATE TABLE billing_document_counter (
  id    boolean PRIMARY KEY DEFAULT true CHECK (id),
  last  bigint NOT NULL
);
INSERT INTO billing_document_counter (last) VALUES (0);

-- A receipt (a payment taken), an invoice (overage owed) or a credit note (money given back): issued
-- once per source, in the same transaction as the money movement it documents, and never changed.
CREATE TABLE billing_documents (
  id            text PRIMARY KEY,
  number        text NOT NULL UNIQUE,
  workspace_id  text NOT NULL REFERENCES workspaces (id),
  kind          text NOT NULL CHECK (kind IN ('receipt', 'invoice', 'credit_note')),
  -- What it documents, once: 'checkout:chk_…', 'refund:chk_…', 'invoice:inv_…', 'stripe_invoice:in_…'.
  source        text NOT NULL UNIQUE,
  provider      text NOT NULL CHECK (provider IN ('local', 'stripe')),
  issued_at     timestamptz NOT NULL,
  currency      text NOT NULL,
  -- [{ description, quantity, unit_cents, amount_cents }]; a credit note's amounts are negative.
  lines         jsonb NOT NULL,
  total_cents   bigint NOT NULL,
  buyer         jsonb NOT NULL,
  seller        jsonb NOT NULL
);
CREATE INDEX billing_documents_workspace_idx ON billing_documents (workspace_id, issued_at);

CREATE FUNCTION billing_documents_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'billing_documents are immutable once issued: issue a credit note instead';
END $$;
CREATE TRIGGER billing_documents_immutable BEFORE UPDATE OR DELETE OR TRUNCATE ON billing_documents
  FOR EACH STATEMENT EXECUTE FUNCTION billing_documents_immutable();

-- Low-balance alert: the owner's threshold in credits, and when the mail of the current crossing was sent
-- (null: armed). Spending cap: the most overage a UTC month may cost, in cents (null: none), and this
-- month's overage as its daily items will price it, kept by the gate in the same row update that
-- reserves an overage credit: cap_spent_cents counts each day's started 10-credit blocks at 5 cents.
ALTER TABLE workspaces
  ADD COLUMN low_balance_threshold  bigint CHECK (low_balance_threshold >= 0),
  ADD COLUMN low_balance_alerted_at timestamptz,
  ADD COLUMN overage_cap_cents      bigint CHECK (overage_cap_cents >= 0),
  ADD COLUMN cap_day                date,
  ADD COLUMN cap_day_credits        bigint NOT NULL DEFAULT 0,
  ADD COLUMN cap_spent_cents        bigint NOT NULL DEFAULT 0;
CREATE INDEX workspaces_low_balance_idx ON workspaces (id) WHERE low_balance_threshold IS NOT NULL;

-- This month's overage so far, for workspaces that already have some: the cap counts from the 1st.
WITH days AS (
  SELECT workspace_id, (at AT TIME ZONE 'UTC')::date AS day, count(*) AS credits
  FROM credit_ledger
  WHERE kind = 'overage' AND pool = 'overage' AND at >= utc_midnight(month_start(now()))
  GROUP BY 1, 2
), totals AS (
  SELECT workspace_id, max(day) AS last_day, sum(ceil(credits / 10.0) * 5)::bigint AS cents
  FROM days GROUP BY 1
)
UPDATE workspaces w SET cap_day = t.last_day, cap_spent_cents = t.cents,
  cap_day_credits = (SELECT d.credits FROM days d WHERE d.workspace_id = w.id AND d.day = t.last_day)
FROM totals t WHERE t.workspace_id = w.id;

-- The gate of docs/contract.md, "Plans and credits", as in 004_accounts.sql, with the spending cap: an
-- overage credit that would take the month's overage past the cap is refused ('cap_reached', retry_after =
-- seconds to the next month), under the same row lock and in the same update that reserves it.
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
