-- Roost V6: identity (seed 001 §2.1) — registration by e-mail and phone, profiles, device-bound
-- tokens, verification codes, throttling of guesses, and user search without table scans.

-- Trusted extension since PostgreSQL 13: the database owner may create it.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

ALTER TABLE account
    ADD COLUMN email              VARCHAR(254),     -- lower-cased
    ADD COLUMN phone              VARCHAR(16),      -- E.164
    ADD COLUMN nick               VARCHAR(64),
    ADD COLUMN avatar_url         VARCHAR(1024),
    ADD COLUMN gender             VARCHAR(16),
    ADD COLUMN age                INTEGER CHECK (age BETWEEN 0 AND 150),
    ADD COLUMN region             VARCHAR(64),
    ADD COLUMN params             VARCHAR(4000),    -- JSON object of string -> string
    ADD COLUMN disabled_by        VARCHAR(8) CHECK (disabled_by IN ('admin', 'self')),
    ADD COLUMN status_changed_at  TIMESTAMPTZ;
-- An unregistered account keeps its address, so registering it again revives the same id.
CREATE UNIQUE INDEX account_email_uq ON account (email) WHERE email IS NOT NULL;
CREATE UNIQUE INDEX account_phone_uq ON account (phone) WHERE phone IS NOT NULL;
-- Prefix search (keyset-paged) and fuzzy search (substring / similarity) by user name.
CREATE INDEX account_username_prefix_idx ON account (lower(username) text_pattern_ops);
CREATE INDEX account_username_trgm_idx ON account USING gin (lower(username) gin_trgm_ops);

-- A token issued by a login is bound to one device; operator- and service-issued tokens are not.
ALTER TABLE access_token
    ADD COLUMN device_type  VARCHAR(16),
    ADD COLUMN device_id    VARCHAR(128);

-- One live code per (address, purpose); a new request replaces it. Codes are PBKDF2-hashed.
CREATE TABLE verification_code (
    address     VARCHAR(260) NOT NULL,               -- 'email:alice@example.com' | 'phone:+8613800000000'
    purpose     VARCHAR(16)  NOT NULL CHECK (purpose IN ('register', 'reset', 'recover', 'change-old', 'change-new')),
    account_id  BIGINT,                              -- the account a reset/recover/change is for
    code_hash   VARCHAR(512) NOT NULL,
    sent_at     TIMESTAMPTZ  NOT NULL DEFAULT now(),
    expires_at  TIMESTAMPTZ  NOT NULL,
    PRIMARY KEY (address, purpose)
);
CREATE INDEX verification_code_expiry_idx ON verification_code (expires_at);

-- Guess limiting for codes (per address) and password logins (per account, per client address).
-- An attempt is counted before it is checked, under the row lock, so parallel guesses cannot
-- exceed the limit; success deletes the row.
CREATE TABLE auth_throttle (
    throttle_key  VARCHAR(300) PRIMARY KEY,          -- 'code:email:…', 'login:account:42', 'login:ip:10.0.0.1'
    attempts      INTEGER      NOT NULL DEFAULT 0,
    window_start  TIMESTAMPTZ  NOT NULL DEFAULT now(),
    locked_until  TIMESTAMPTZ
);
CREATE INDEX auth_throttle_window_idx ON auth_throttle (window_start);
