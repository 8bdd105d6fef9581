-- The user search reads the `scan` highest-XP users through users_xp and applies its filters to
-- those rows only (spec: filters after the scan), so no plan uses the array and trigram indexes of
-- 012: they only cost every profile, presence and XP write. The live list keeps users_live.
DROP INDEX IF EXISTS users_domains;
DROP INDEX IF EXISTS users_platforms;
DROP INDEX IF EXISTS users_languages;
DROP INDEX IF EXISTS users_wallet_trgm;
DROP INDEX IF EXISTS users_display_name_trgm;
