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
-- reserves an overage credit (api_gate, 013): cap_spent_cents counts each day's started 10-credit blocks at 5 cents.
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
