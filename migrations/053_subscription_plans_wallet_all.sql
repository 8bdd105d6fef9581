-- The limits review (stop 71): a wallet's subscription plans, active and inactive, are counted at
-- each plan creation (readmodels.Plans.Create, MaxKeptPlans); the only wallet index
-- (subscription_plans_wallet) is partial on active, so the count would read the whole table.
CREATE INDEX subscription_plans_wallet_all ON subscription_plans (wallet);
