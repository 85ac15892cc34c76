-- Two-factor login by TOTP (docs/web.md, "Two-factor login"). The secret is set when the user starts the setup and
-- counts once a first code confirms it; the last time step accepted keeps a code from working twice.
ALTER TABLE users ADD COLUMN totp_secret text;
ALTER TABLE users ADD COLUMN totp_enabled_at timestamptz;
ALTER TABLE users ADD COLUMN totp_last_step bigint;

-- Single-use codes for a lost phone, shown once at setup; only their SHA-256 is kept.
CREATE TABLE recovery_codes (
  user_id    text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  code_hash  bytea NOT NULL,
  used_at    timestamptz,
  PRIMARY KEY (user_id, code_hash)
);

-- A password accepted, the code still to come: the login's second step, by a token only its browser holds.
CREATE TABLE login_challenges (
  token_hash  bytea PRIMARY KEY,
  user_id     text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  next        text,
  expires_at  timestamptz NOT NULL,
  attempts    integer NOT NULL DEFAULT 0
);
