-- Token prices in USD and the EUR/USD rate, each with the time it was set (plain configuration;
-- every quote records the rate it used in the receipt's events).
CREATE TABLE prices (
    asset      text        PRIMARY KEY, -- ETH, cbBTC, cbXRP, EUR
    usd_price  text        NOT NULL,    -- exact decimal
    set_at     timestamptz NOT NULL,
    set_by     text        NOT NULL
);

-- API calls per merchant and UTC day, counted by the API and flushed in the background.
CREATE TABLE api_usage (
    wallet text NOT NULL,
    day    date NOT NULL,
    calls  bigint NOT NULL,
    PRIMARY KEY (wallet, day)
);
