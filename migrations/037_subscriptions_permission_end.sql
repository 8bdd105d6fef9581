-- A subscription whose spend permission has ended can never be charged again (the manager refuses
-- every spend from its end on), yet its nextChargeAt stayed in the past, so it was listed as due
-- at every run, first in the list, ahead of the subscriptions that can be charged. The due list
-- leaves it out: the permission's end (Unix seconds, exclusive) is a column of the projection,
-- computed from the folded state the projector already stores, so the projector is unchanged and
-- a rebuild fills it the same way.
ALTER TABLE subscriptions ADD COLUMN permission_end bigint
    GENERATED ALWAYS AS ((state -> 'permission' ->> 'end')::bigint) STORED;
