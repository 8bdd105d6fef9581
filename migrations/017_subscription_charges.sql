-- Subscription charging (issue 17 item 5). The operator's charge transactions go into the
-- operator_transactions ledger like deployments and releases, so that one nonce sequence serves
-- every kind and two processes sharing CHAIN_OPERATOR_KEY never sign two transactions at one nonce.
ALTER TABLE operator_transactions DROP CONSTRAINT operator_transactions_kind_check;
ALTER TABLE operator_transactions ADD CONSTRAINT operator_transactions_kind_check
    CHECK (kind IN ('deploy', 'release', 'approve', 'spend', 'transfer'));

-- One row per subscription and period index: the claim taken BEFORE any transaction is sent (the
-- primary key makes two instances unable to charge one period), then the intent (the hashes of
-- the signed transactions, recorded with them in operator_transactions before they are
-- broadcast), then the outcome. A row whose charge is recorded (status 'charged') is the billing
-- record of that charge. Statuses:
--   claimed      claimed, nothing signed yet
--   spending     approveWithSignature (first use) and spend signed, recorded and broadcast
--   spent        the spend is mined; the transfer to the split is not recorded yet
--   transferring the transfer to the merchant's split is signed, recorded and broadcast
--   charged      SubscriptionCharged is recorded (final)
--   failed       SubscriptionChargeFailed is recorded for this attempt; a later run may claim
--                the period again (attempt + 1)
-- claim_token names the process that holds an open row; every transition checks it, and a row
-- left open longer than the lease is taken over by another process (crash recovery), which looks
-- its transactions up on chain instead of sending new ones.
CREATE TABLE subscription_charges (
    subscription_id    text           NOT NULL,
    period_index       bigint         NOT NULL,
    merchant           text           NOT NULL,
    customer           text           NOT NULL,
    split_address      text           NOT NULL DEFAULT '',
    amount_units       numeric(78, 0) NOT NULL, -- USDC base units
    amount_cents       bigint         NOT NULL, -- the plan price, USD cents
    platform_fee_cents bigint         NOT NULL, -- 0.5% of it, half-up: the split's platform share
    attempt            int            NOT NULL,
    status             text           NOT NULL CHECK (status IN ('claimed', 'spending', 'spent', 'transferring', 'charged', 'failed')),
    claim_token        uuid           NOT NULL,
    approve_tx         text,
    spend_tx           text,
    transfer_tx        text,
    reason             text,
    claimed_at         timestamptz    NOT NULL DEFAULT now(),
    updated_at         timestamptz    NOT NULL DEFAULT now(),
    charged_at         timestamptz,
    distributed_at     timestamptz,
    PRIMARY KEY (subscription_id, period_index)
);
CREATE INDEX subscription_charges_open ON subscription_charges (updated_at) WHERE status NOT IN ('charged', 'failed');
CREATE INDEX subscription_charges_billing ON subscription_charges (merchant, charged_at) WHERE status = 'charged';
CREATE INDEX subscription_charges_undistributed ON subscription_charges (split_address) WHERE status = 'charged' AND distributed_at IS NULL;

-- Webhooks of subscription charges (subscription.charged, subscription.charge_failed): queued
-- when the charge or the failed attempt is recorded, for merchants whose shop config has a
-- webhookUrl; delivered and retried by webhooks.SubscriptionSender. One row per charge outcome
-- (the key): a recovery that finds the outcome recorded queues nothing twice.
CREATE TABLE subscription_webhooks (
    id              uuid        PRIMARY KEY,
    idempotency_key text        NOT NULL UNIQUE, -- <subscriptionId>:<periodIndex>:charged | :failed:<attempt>
    event           text        NOT NULL CHECK (event IN ('subscription.charged', 'subscription.charge_failed')),
    subscription_id text        NOT NULL,
    merchant_wallet text        NOT NULL,
    url             text        NOT NULL,
    payload         jsonb       NOT NULL,
    state           text        NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
    attempts        int         NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    lease_until     timestamptz,
    last_status     int,
    last_error      text,
    created_at      timestamptz NOT NULL DEFAULT now(),
    delivered_at    timestamptz
);
CREATE INDEX subscription_webhooks_due ON subscription_webhooks (next_attempt_at) WHERE state = 'pending';
