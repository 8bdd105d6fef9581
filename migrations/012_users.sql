-- Users (DESIGN 8): profiles, presence and follows are CRUD; xp is the users projection's
-- (projections.Users) sum of its per-receipt credits, a function of the receipt events.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE users (
    wallet         text        PRIMARY KEY CHECK (wallet = lower(wallet)),
    display_name   text        NOT NULL DEFAULT '',
    pfp_url        text        NOT NULL DEFAULT '',
    domains        text[]      NOT NULL DEFAULT '{}',
    platforms      text[]      NOT NULL DEFAULT '{}',
    languages      text[]      NOT NULL DEFAULT '{}',
    space_public   boolean     NOT NULL DEFAULT false,
    live           boolean     NOT NULL DEFAULT false,
    space_url      text        NOT NULL DEFAULT '',
    platform       text        NOT NULL DEFAULT '',
    live_since     timestamptz,
    last_heartbeat timestamptz,
    last_seen      timestamptz,
    xp             bigint      NOT NULL DEFAULT 0,
    updated_at     timestamptz NOT NULL DEFAULT now()
);
-- Search reads the highest-XP users first (ties by wallet).
CREATE INDEX users_xp ON users (xp DESC, wallet);
CREATE INDEX users_domains ON users USING gin (domains);
CREATE INDEX users_platforms ON users USING gin (platforms);
CREATE INDEX users_languages ON users USING gin (languages);
CREATE INDEX users_wallet_trgm ON users USING gin (lower(wallet) gin_trgm_ops);
CREATE INDEX users_display_name_trgm ON users USING gin (lower(display_name) gin_trgm_ops);
-- Live listing: only public live users are candidates.
CREATE INDEX users_live ON users (last_heartbeat) WHERE live AND space_public;

CREATE TABLE follows (
    follower   text        NOT NULL CHECK (follower = lower(follower)),
    followee   text        NOT NULL CHECK (followee = lower(followee)),
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (follower, followee),
    CHECK (follower <> followee)
);
CREATE INDEX follows_followee ON follows (followee, follower);

-- The users projection's state per receipt: what it needs to credit XP once when the receipt is
-- paid and take it back once on a full refund. Emptied by a rebuild.
CREATE TABLE user_xp (
    receipt_id     text        PRIMARY KEY,
    merchant       text        NOT NULL,
    currency       text        NOT NULL,
    total_cents    bigint      NOT NULL,
    buyer          text        NOT NULL DEFAULT '', -- the latest submitted buyer wallet
    eur_usd        text        NOT NULL DEFAULT '', -- the latest quoted EUR/USD rate (EUR receipts)
    refunded_cents bigint      NOT NULL DEFAULT 0,
    wallet         text        NOT NULL DEFAULT '', -- the credited wallet
    xp             bigint      NOT NULL DEFAULT 0,  -- currently credited
    credited       boolean     NOT NULL DEFAULT false,
    debited        boolean     NOT NULL DEFAULT false
);

-- The merchant's xpPerDollar when each receipt was first credited. Shop configuration is not in
-- the log, so the rate is captured once and kept across rebuilds: a rebuild gives the same XP.
CREATE TABLE user_xp_rates (
    receipt_id    text        PRIMARY KEY,
    xp_per_dollar numeric     NOT NULL CHECK (xp_per_dollar >= 0),
    captured_at   timestamptz NOT NULL DEFAULT now()
);
