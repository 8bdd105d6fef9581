-- The subscriptions read model (projections.Subscriptions): one row per subscription stream,
-- the folded state kept whole (state) next to the columns the lists filter and sort on.
CREATE TABLE subscriptions (
    subscription_id text        PRIMARY KEY,
    plan_id         text        NOT NULL,
    merchant        text        NOT NULL,
    customer        text        NOT NULL,
    status          text        NOT NULL,
    next_charge_at  bigint      NOT NULL,
    created_at      bigint      NOT NULL,
    version         bigint      NOT NULL,
    state           jsonb       NOT NULL
);
CREATE INDEX subscriptions_customer ON subscriptions (customer, created_at);
CREATE INDEX subscriptions_merchant ON subscriptions (merchant, created_at);
CREATE INDEX subscriptions_due ON subscriptions (next_charge_at) WHERE status <> 'cancelled';
