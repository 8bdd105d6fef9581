-- The webhook retention worker prunes endpoints deleted more than 30 days ago (stop 68,
-- readmodels.Endpoints.PruneDeletedEndpoints): a create/delete loop grew webhook_endpoints without
-- end. Its query looks for the oldest deleted rows once a minute; without this partial index it is
-- a sequential scan of the table (436 ms on a million deleted rows, 0.08 ms with it). Live
-- endpoints (deleted_at NULL) are not in it, so it costs their writes nothing.
CREATE INDEX IF NOT EXISTS webhook_endpoints_deleted ON webhook_endpoints (deleted_at) WHERE deleted_at IS NOT NULL;
