-- Subscription plans are CRUD (DESIGN 8): a merchant's price and period. Deactivating a plan
-- keeps it (and every subscription made from it); only new subscriptions are refused.
CREATE TABLE subscription_plans (
    plan_id     text        PRIMARY KEY,
    wallet      text        NOT NULL,
    name        text        NOT NULL,
    description text        NOT NULL DEFAULT '',
    price_cents bigint      NOT NULL CHECK (price_cents > 0),
    period      text        NOT NULL CHECK (period IN ('WEEKLY', 'BIWEEKLY', 'MONTHLY', 'QUARTERLY', 'YEARLY')),
    active      boolean     NOT NULL DEFAULT true,
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL
);
CREATE INDEX subscription_plans_wallet ON subscription_plans (wallet, created_at) WHERE active;
