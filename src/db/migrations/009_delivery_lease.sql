-- Delivery by a loop on every instance, endpoint by endpoint (docs/webhooks.md, "Delivery").

-- A claimed delivery's lease: in flight until then, taken again after it when its instance died. Kept apart from
-- next_attempt_at so that an endpoint's deliveries in flight can be counted (its cap) and a delivery in flight is
-- never claimed again before its lease ends, whatever moves its next attempt (a resume).
ALTER TABLE webhook_deliveries ADD COLUMN leased_until timestamptz;

-- The claim reads an endpoint's due deliveries, oldest first, and counts those in flight.
CREATE INDEX webhook_deliveries_endpoint_due_idx ON webhook_deliveries (endpoint_id, next_attempt_at)
  WHERE status = 'pending';

-- The delivery job (every 5 s) is replaced by the loop: its runs, some 17,000 a day, are of no further use.
DELETE FROM job_runs WHERE job = 'webhook_delivery';
