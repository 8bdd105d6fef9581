-- Every statement that changes users (profiles, presence, XP from the users projector, its
-- rebuild) or follows announces itself on payledger_users_changed at commit, so that each
-- instance's in-memory window of the highest-XP users and their follow counts
-- (readmodels.topUsers, which answers searches and leaderboards) is read again. One notification
-- per statement, not per row: a rebuild sends one, not one per user.
CREATE FUNCTION users_changed_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_notify('payledger_users_changed', '');
	RETURN NULL;
END
$$;
CREATE TRIGGER users_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON users
	FOR EACH STATEMENT EXECUTE FUNCTION users_changed_notify();
CREATE TRIGGER follows_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON follows
	FOR EACH STATEMENT EXECUTE FUNCTION users_changed_notify();
