-- The subscription webhook sender's fair claim (readmodels.SubscriptionWebhooks.ClaimShared): it
-- walks the merchants that have pending charge webhooks, one index probe each, and takes each
-- one's oldest due up to a share, so one merchant's backlog to a hanging receiver cannot fill
-- every attempt in flight.
CREATE INDEX IF NOT EXISTS subscription_webhooks_merchant_due ON subscription_webhooks (merchant_wallet, next_attempt_at)
    WHERE state = 'pending';
