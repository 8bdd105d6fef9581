-- A submitted hash no longer binds to the first receipt it is posted for (DESIGN 10: a
-- front-runner's hint must not block the payer's): hints are kept in payment_hints, and a
-- transfer belongs to the receipt it is credited to (deposit_credits).
DROP TABLE wallet_transactions;
