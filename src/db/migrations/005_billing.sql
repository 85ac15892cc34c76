-- Billing (docs/contract.md, "Billing routes"): checkouts of credit packs and of plans, overage invoices
-- with their daily items, and the Stripe events applied. The money rules stay in the ledger: a pack refund and a paid overage item each
-- write an entry, so the balance (the ledger's signed sum) is negative exactly while overage is unpaid.

-- One row per checkout started; its unguessable id is the capability of the local checkout page. A
-- `pack` checkout buys the credit pack `slug`; a `plan` checkout subscribes (or upgrades) to the plan
-- `slug`, at its monthly price, the change made when it is paid (docs/billing.md, "Plans").
CREATE TABLE checkouts (
  id            text PRIMARY KEY,
  workspace_id  text NOT NULL REFERENCES workspaces (id),
  kind          text NOT NULL DEFAULT 'pack' CHECK (kind IN ('pack', 'plan')),
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
  CHECK ((status = 'open') = (paid_at IS NULL)),
  CHECK (CASE kind WHEN 'pack' THEN (status = 'open') = (pack_id IS NULL) ELSE pack_id IS NULL AND status <> 'refunded' END),
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


-- Stripe events applied, by id: Stripe delivers an event at least once, and each is applied once.
CREATE TABLE stripe_events (
  id            text PRIMARY KEY,
  type          text NOT NULL,
  created       timestamptz NOT NULL,
  received_at   timestamptz NOT NULL
);
