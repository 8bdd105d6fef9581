-- A block follower's cursor names its chain (issue 40): the hash of the chain's genesis block.
-- A cursor of another chain (a development chain started afresh, a reset testnet, another chain
-- with the same CHAIN_ID) is never applied to this one: its block number means nothing here.
-- Cursors saved before this migration have '' (unknown): the first step on a chain records it.
ALTER TABLE chain_cursors ADD COLUMN genesis_hash text NOT NULL DEFAULT '';
