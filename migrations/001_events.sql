-- The event log. Global order is (tx_id, seq): tx_id is the appending transaction's id, and
-- readers only read below the oldest transaction still running, so an event committed late can
-- never be skipped by a reader that already moved past its sequence number.
CREATE TABLE events (
    seq         bigserial   NOT NULL,
    tx_id       bigint      NOT NULL DEFAULT (pg_current_xact_id()::text::bigint),
    event_id    uuid        NOT NULL,
    stream_id   text        NOT NULL,
    version     bigint      NOT NULL CHECK (version >= 1),
    type        text        NOT NULL,
    -- json, not jsonb: the exact bytes are kept, so the hash chain can be checked forever.
    data        json        NOT NULL,
    metadata    json        NOT NULL,
    recorded_at timestamptz NOT NULL,
    prev_hash   bytea,
    hash        bytea       NOT NULL,
    PRIMARY KEY (tx_id, seq),
    CONSTRAINT events_stream_version_key UNIQUE (stream_id, version),
    CONSTRAINT events_event_id_key UNIQUE (event_id)
);
