-- The billing record of each subscription charge as a projection of SubscriptionCharged
-- (projections.Subscriptions writes one row per event, next to the subscriptions row, and
-- `payledger projections rebuild subscriptions` rebuilds both). subscription_charges stays the
-- operational claim and intent table of charging; GET /api/billing/balance reads this table.
-- amount_cents is the plan price of the subscription's SubscriptionCreated snapshot;
-- platform_fee_cents is 0.5% of it, half-up to the cent (the split's platform share).
CREATE TABLE subscription_billing (
    subscription_id    text           NOT NULL,
    period_index       bigint         NOT NULL,
    plan_id            text           NOT NULL,
    merchant           text           NOT NULL,
    customer           text           NOT NULL,
    amount_units       numeric(78, 0) NOT NULL, -- USDC base units spent
    amount_cents       bigint         NOT NULL,
    platform_fee_cents bigint         NOT NULL,
    transaction_hashes text[]         NOT NULL,
    charged_at         timestamptz    NOT NULL,
    version            bigint         NOT NULL, -- the SubscriptionCharged event's stream version
    PRIMARY KEY (subscription_id, period_index)
);
CREATE INDEX subscription_billing_merchant ON subscription_billing (merchant, charged_at);

-- The charges the projector applied before this table existed (the rows charging closed as
-- charged carry the same figures); a rebuild of the subscriptions projection gives the same rows.
INSERT INTO subscription_billing (subscription_id, period_index, plan_id, merchant, customer, amount_units, amount_cents,
        platform_fee_cents, transaction_hashes, charged_at, version)
SELECT c.subscription_id, c.period_index, s.plan_id, c.merchant, c.customer, c.amount_units, c.amount_cents,
       c.platform_fee_cents, array_remove(ARRAY[c.approve_tx, c.spend_tx, c.transfer_tx], NULL), c.charged_at, 0
FROM subscription_charges c JOIN subscriptions s USING (subscription_id)
WHERE c.status = 'charged' AND c.charged_at IS NOT NULL;

-- Billing no longer reads the claim table.
DROP INDEX subscription_charges_billing;
