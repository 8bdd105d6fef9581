-- The filtered user search (readmodels.Users.Search) reads the `scan` highest-XP users and only
-- then filters them (spec). The cheap filters (q, XP bounds, live) are evaluated on an index-only
-- scan of this index, which carries the lower-case display name and the presence columns next to
-- the (xp DESC, wallet) order, and only the rows that pass them are read from the table (for the
-- array filters and the page). The arrays stay out: a btree entry is limited to ~2.7 KB.
-- It replaces users_xp (same key), which every other plan on that order keeps using.
ALTER TABLE users ADD COLUMN display_name_lower text GENERATED ALWAYS AS (lower(display_name)) STORED;
CREATE INDEX users_xp_search ON users (xp DESC, wallet) INCLUDE (display_name_lower, live, space_public, last_heartbeat);
DROP INDEX users_xp;
