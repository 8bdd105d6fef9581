-- Two states shared by every instance (stop 74). The hourly bounds: the per-wallet, per-merchant
-- and per-address bounds an hour (key, endpoint and plan creations, test events, redeliveries,
-- subscription creations, split deployments per address: transport's limitEveryAll) were counted
-- by each instance on its own without REDIS_URL (or while Redis failed), so n instances allowed n
-- times each bound. They are counted here for every instance on the database
-- (readmodels.HourlyBounds) unless Redis answers.
--   key     the bucket ("keycreate:<wallet>", "subcreate:<network>", ...)
--   tat_us  its theoretical arrival time (GCRA, as ratelimit.Memory and the Redis script count),
--           microseconds since the Unix epoch: integers, so the function's arithmetic is exact
-- A row whose tat_us is in the past is whole again: the counts delete such rows an hour old.
CREATE TABLE hourly_bounds (
    key    text PRIMARY KEY,
    tat_us bigint NOT NULL
);
CREATE INDEX hourly_bounds_tat ON hourly_bounds (tat_us);

-- hourly_bounds_take counts one request in every bucket p_keys[i] (p_limits[i] requests per
-- p_period_us, with a burst of as many), in all or in none, at p_at_us (NULL: the database's
-- clock, read once the rows are locked). One call is one statement for the caller: the rows are
-- created and locked in key order first (two requests sharing buckets wait for each other and
-- never deadlock), so the check and the count see the latest counts and no concurrent request
-- takes the same place. It answers, for each bucket in the order given (pos), whether the bucket
-- had room, whether the request was counted (every bucket had room), the places left, when a
-- place comes back (retry_us) and when the bucket is whole again (reset_us), and the clock used.
-- p_keys must be distinct (readmodels.HourlyBounds drops repeats).
CREATE FUNCTION hourly_bounds_take(p_keys text[], p_limits integer[], p_period_us bigint, p_at_us bigint)
RETURNS TABLE (pos bigint, allowed boolean, counted boolean, remaining bigint, retry_us bigint, reset_us bigint, at_us bigint)
LANGUAGE plpgsql AS $$
DECLARE
    v_at bigint;
BEGIN
    INSERT INTO hourly_bounds AS h (key, tat_us)
        SELECT k, 0 FROM unnest(p_keys) AS k ORDER BY k
        ON CONFLICT (key) DO UPDATE SET tat_us = h.tat_us;
    v_at := coalesce(p_at_us, (extract(epoch FROM clock_timestamp()) * 1000000)::bigint);
    -- A few rows whole for an hour go (the margin covers the instances' clocks), not this call's.
    DELETE FROM hourly_bounds WHERE key IN (SELECT o.key FROM hourly_bounds o
        WHERE o.tat_us < v_at - 3600000000 AND o.key <> ALL (p_keys)
        ORDER BY o.tat_us LIMIT 16 FOR UPDATE SKIP LOCKED);
    RETURN QUERY
    WITH b AS (
        SELECT u.k, u.pos, greatest(u.n, 1) AS n, greatest(p_period_us / greatest(u.n, 1), 1) AS iv,
               greatest(h.tat_us, v_at) AS tat
        FROM unnest(p_keys, p_limits) WITH ORDINALITY AS u(k, n, pos) JOIN hourly_bounds h ON h.key = u.k),
    d AS (SELECT b.*, b.tat + b.iv - b.n * b.iv AS allow_at FROM b),
    ok AS (SELECT bool_and(v_at >= d.allow_at) AS all_ok FROM d),
    up AS (UPDATE hourly_bounds h SET tat_us = d.tat + d.iv FROM d, ok WHERE ok.all_ok AND h.key = d.k)
    SELECT d.pos, v_at >= d.allow_at, ok.all_ok,
           CASE WHEN v_at >= d.allow_at THEN (v_at - d.allow_at) / d.iv ELSE 0 END,
           d.allow_at, CASE WHEN v_at >= d.allow_at THEN d.tat + d.iv ELSE d.tat END, v_at
    FROM d, ok ORDER BY d.pos;
END
$$;

-- The onramp processor's state as the instance verifying the open attempts found it (stop 74):
-- only the instance holding the reconciliation's turn (pgstore.NewReconcileTurn) asks the
-- processor, so only its /healthz said it was down. The holder records each pass's finding here
-- (pgstore.ProcessorState); the other instances read it at their passes and report it too.
--   checked_at  when the holder last asked (a report older than a few passes is not trusted)
--   down_since  since when the processor has not answered (NULL: it answered the last pass)
--   error       why, as the holder's pass said it (NULL with down_since)
-- One row (id is always true).
CREATE TABLE onramp_processor_state (
    id         boolean PRIMARY KEY DEFAULT true CHECK (id),
    checked_at timestamptz NOT NULL,
    down_since timestamptz,
    error      text
);
