-- The generation data is inside state ("receipt"); the separate copy was written on every
-- projection and never read: one JSON document less to parse, compress and store per write.
ALTER TABLE receipts DROP COLUMN receipt;
