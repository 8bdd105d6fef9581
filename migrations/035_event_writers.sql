-- Event writers announce themselves (issue 38). A receipt's generation is applied in its append's
-- transaction only when no transaction that could still commit events before it is running
-- (projections/atappend.go). Until now every older transaction of this database counted, so the
-- projectors' own transactions (read models only) sent one order in twenty to the projector.
-- Now only event writers count: a transaction calls events_writer() before its first write,
-- while it has no transaction id yet, and holds a shared advisory lock (events_writer_lock) to its
-- end; a trigger refuses events from a transaction that did not. So a transaction that has an id
-- and does not hold that lock never writes an event.

CREATE FUNCTION events_writer_lock(OUT classid oid, OUT objid oid, OUT objsubid smallint)
LANGUAGE sql IMMUTABLE AS $$ SELECT 1885436268::oid, 38::oid, 2::smallint $$; -- 'payl', issue 38, two-key form

CREATE FUNCTION events_writer() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	IF pg_current_xact_id_if_assigned() IS NOT NULL THEN
		RAISE EXCEPTION 'events_writer() must come before the transaction''s first write';
	END IF;
	PERFORM pg_advisory_xact_lock_shared(1885436268, 38);
	PERFORM set_config('payledger.events_writer', 'on', true);
END $$;

CREATE FUNCTION events_writers_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF current_setting('payledger.events_writer', true) IS DISTINCT FROM 'on' THEN
		RAISE EXCEPTION 'events are written only by a transaction that called events_writer() before its first write';
	END IF;
	RETURN NULL;
END $$;

CREATE TRIGGER events_writers_only BEFORE INSERT ON events FOR EACH STATEMENT EXECUTE FUNCTION events_writers_only();
