-- The limits review (stop 72): the split deployments the operator pays for an hour, all clients
-- and every instance together (RATE_LIMIT_SPLIT_DEPLOY_BUDGET_PER_HOUR, readmodels.SplitBudget).
-- The budget was a rate limiter's bucket: shared through Redis, but counted by each instance on
-- its own without Redis (or while it was down), so n instances let the operator pay n times it.
--   hour         the hour counted, by the database's clock (UTC, truncated to the hour)
--   deployments  the deployments let through in that hour (never past the budget: the count
--                goes up only while it is below it, in one statement)
-- One row an hour; rows older than a day are deleted by the count itself.
CREATE TABLE split_deploy_budget (
    hour        timestamptz PRIMARY KEY,
    deployments integer NOT NULL CHECK (deployments >= 0)
);
