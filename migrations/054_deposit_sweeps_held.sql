-- The sweeps review (stop 71): a failed receipt's funds held under the sweep floor
-- (receipt.State.SweepHeld) were only logged. The sweeper's check now writes them on its
-- deposit_sweeps row (pgstore.DepositSweeps.Checked), so an operator lists them with a query
-- (runbook "Funds left at a deposit"):
--   held_units  what the last check left at the deposit, base units by token symbol
--               ({"USDC": "1", "ETH": "1"}); NULL when the last check left nothing held (swept,
--               nothing unswept, not failed)
--   held_at     when the funds were first found held since they were last not (NULL with held_units)
-- Nullable, no default: adding them rewrites nothing. The partial index lists the held rows only.
ALTER TABLE deposit_sweeps ADD COLUMN held_units jsonb, ADD COLUMN held_at timestamptz;
CREATE INDEX deposit_sweeps_held ON deposit_sweeps (held_at) WHERE held_units IS NOT NULL;
