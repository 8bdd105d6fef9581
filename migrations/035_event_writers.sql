-- Event writers announce themselves (issue 38). Readers of the log stop below the oldest
-- transaction that may still add events (logHorizon, eventstore/postgres), and a receipt's
-- generation is applied in its append's transaction only when no such transaction is older
-- (projections/atappend.go). Until now every running transaction of this database counted, so the
-- projectors' own transactions (read models only) held readers back and sent one order in twenty
-- to the projector. Now only event writers count: a transaction calls events_writer() before its
-- first write, while it has no transaction id yet, and holds a shared advisory lock to its end; a
-- trigger refuses events from a transaction that did not. So a transaction that has an id and
-- does not hold that lock never writes an event.

CREATE FUNCTION events_writer() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	IF pg_current_xact_id_if_assigned() IS NOT NULL THEN
		RAISE EXCEPTION 'events_writer() must come before the transaction''s first write';
	END IF;
	PERFORM pg_advisory_xact_lock_shared(1885436268, 38); -- 'payl', issue 38: classid, objid, objsubid 2 in pg_locks
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

-- events_writers_among is those of ids that may still add events to this database's log: not
-- found running (ended since the caller's snapshot, or prepared: they cannot be placed), or whose
-- backend holds the writers' lock of this database. The lock table is read once, when ids is not
-- empty, so an id's own lock and its backend's locks are seen together. They are matched by
-- backend (pid), not by virtual transaction: a committing transaction's rows can show two
-- virtual transactions (its advisory lock's with local id 0), which the conformance gap test
-- caught as events read past. A backend runs one transaction at a time, and releases its
-- transaction id's lock before its advisory locks, so while an id's lock is seen its backend's
-- advisory locks are that transaction's. A transaction of another database never holds this
-- database's lock. STABLE: it runs in the caller's snapshot.
CREATE FUNCTION events_writers_among(ids xid8[]) RETURNS SETOF xid8 LANGUAGE sql STABLE AS $$
	WITH l AS MATERIALIZED (
		SELECT locktype, database, classid, objid, objsubid, transactionid, pid, mode, granted
		FROM pg_locks WHERE locktype IN ('transactionid', 'advisory')
	)
	SELECT i.id FROM unnest(ids) AS i(id) WHERE NOT EXISTS (
		SELECT 1 FROM l t WHERE t.locktype = 'transactionid' AND t.transactionid = xid(i.id)
			AND t.mode = 'ExclusiveLock' AND t.granted AND t.pid IS NOT NULL
			AND NOT EXISTS (SELECT 1 FROM l w WHERE w.locktype = 'advisory' AND w.pid = t.pid
				AND w.database = (SELECT oid FROM pg_database WHERE datname = current_database())
				AND w.classid = 1885436268 AND w.objid = 38 AND w.objsubid = 2))
$$;
