-- Changing a user's address (docs/web.md, "Changing the address"): a link mailed to the new address carries the
-- change; the address is the user's once the link is followed.
ALTER TABLE email_tokens DROP CONSTRAINT email_tokens_purpose_check;
ALTER TABLE email_tokens ADD CONSTRAINT email_tokens_purpose_check
  CHECK (purpose IN ('verify', 'reset', 'email_change'));
ALTER TABLE email_tokens ADD COLUMN new_email text;
