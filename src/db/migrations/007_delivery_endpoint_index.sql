-- An endpoint's deliveries by endpoint (docs/webhooks.md): its delivery log, resuming it (what waits is sent
-- at once) and deleting it (the cascade) each read them; without this index each read scans every delivery
-- of the last 30 days of every workspace.

CREATE INDEX IF NOT EXISTS webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id);
