-- One row per projector: the global position its read models reflect. Written in the same
-- transaction as the read-model changes, so each event takes effect exactly once.
CREATE TABLE projection_checkpoints (
    name        text        PRIMARY KEY,
    commit_pos  bigint      NOT NULL DEFAULT 0,
    prepare_pos bigint      NOT NULL DEFAULT 0,
    updated_at  timestamptz NOT NULL DEFAULT now()
);
