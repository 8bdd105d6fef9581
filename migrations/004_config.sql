-- Plain configuration (no history worth auditing): per-merchant shop settings and the one row of
-- platform (site) defaults.
CREATE TABLE shop_configs (
    wallet     text        PRIMARY KEY,
    slug       text        UNIQUE,
    config     jsonb       NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE site_config (
    id         int         PRIMARY KEY CHECK (id = 1),
    config     jsonb       NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);
