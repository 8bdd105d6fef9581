-- A refund request reserves its transaction hash before it records the refund, and gives the
-- reservation back when it records nothing. Two requests for one receipt with one hash (a
-- double submit) share the reservation: the one that made it must not give it back when the
-- other recorded the refund, or the hash would be free for another receipt while this one counts
-- it. So a reservation counts the requests holding it: each reservation adds one, each give-back
-- takes one, and the row is deleted only when none holds it and it is still a claim. A recorded
-- refund's request never gives its hold back; the refund verifier's lifecycle (counted, or
-- refused and deleted; a claim never recorded deleted after a minute) is unchanged.
ALTER TABLE refund_claims ADD COLUMN holders integer NOT NULL DEFAULT 1 CHECK (holders >= 0);
