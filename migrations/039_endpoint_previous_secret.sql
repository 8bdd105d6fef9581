-- Webhook endpoint secret rotation (POST /api/webhooks/endpoints/{id}/secret/rotate): the secret
-- an endpoint had before its latest rotation, sealed as the current one is (AES-256-GCM with
-- SECRETS_KEY, the endpoint id as additional data), and when it stops signing. Until then every
-- delivery carries both signatures ("v1,<new> v1,<old>"). Nullable: an endpoint never rotated
-- has none, and an older binary, which reads only secret_nonce/secret_ciphertext, keeps working
-- on this schema (it signs with the current secret only).
ALTER TABLE webhook_endpoints
    ADD COLUMN IF NOT EXISTS previous_secret_nonce      bytea,
    ADD COLUMN IF NOT EXISTS previous_secret_ciphertext bytea,
    ADD COLUMN IF NOT EXISTS previous_secret_expires_at timestamptz;
