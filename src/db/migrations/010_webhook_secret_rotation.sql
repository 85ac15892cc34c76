-- A rotated endpoint secret keeps signing beside the new one for a day (docs/webhooks.md, "Rotating a secret"), so
-- that receivers switch without a failed delivery. Existing endpoints have none.
ALTER TABLE webhook_endpoints ADD COLUMN previous_secret text;
ALTER TABLE webhook_endpoints ADD COLUMN previous_secret_until timestamptz;
