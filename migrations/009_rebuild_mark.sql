-- The log head when a projection was last rebuilt: events at or below it were already acted on
-- (webhooks queued), so a replay only rebuilds state.
ALTER TABLE projection_checkpoints ADD COLUMN replay_commit bigint NOT NULL DEFAULT 0;
ALTER TABLE projection_checkpoints ADD COLUMN replay_prepare bigint NOT NULL DEFAULT 0;
