// Package secrets keeps the API key that signs each receipt's webhooks, sealed with AES-256-GCM
// under SECRETS_KEY (WebhookKeys), and seals the other secrets the read models store (endpoint
// signing secrets, idempotent responses) with the same key.
package secrets

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// ErrNotFound: no key is stored for the receipt.
var ErrNotFound = errors.New("not found")

// WebhookKeys stores the API key that signs each receipt's webhooks, encrypted with AES-256-GCM.
// The receipt id is the additional data, so a ciphertext cannot be moved to another receipt.
type WebhookKeys struct {
	pool *pgxpool.Pool
	aead cipher.AEAD
}

// NewWebhookKeys returns the store; key is SECRETS_KEY (32 bytes).
func NewWebhookKeys(pool *pgxpool.Pool, key []byte) (*WebhookKeys, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("webhook keys: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("webhook keys: %w", err)
	}
	return &WebhookKeys{pool: pool, aead: aead}, nil
}

// Save stores the key for receiptID unless one is stored already (the first capture stands).
// With the PostgreSQL event store the key is not saved on its own but sealed (Seal) and committed
// with the receipt's first event (projections.ReceiptsAtAppend, QueueSealedKeys).
func (w *WebhookKeys) Save(ctx context.Context, receiptID, secret string) error {
	nonce, ct, err := w.Seal(receiptID, secret)
	if err != nil {
		return err
	}
	return w.SaveSealed(ctx, receiptID, nonce, ct)
}

// QueueSealedKeys queues into batch the insert of sealed keys (ids[i]'s key is nonces[i],
// sealed[i]), each unless one is stored: the keys of new receipts, committed in their
// generations' append transaction (projections.ReceiptsAtAppend).
func QueueSealedKeys(batch *pgx.Batch, ids []string, nonces, sealed [][]byte) {
	batch.Queue(insertKeys, ids, nonces, sealed)
}

// insertKeys stores keys, one per array element: many in one statement (QueueSealedKeys), or
// one (SaveSealed).
const insertKeys = `INSERT INTO receipt_webhook_keys (receipt_id, nonce, ciphertext)
	SELECT * FROM unnest($1::text[], $2::bytea[], $3::bytea[]) ON CONFLICT DO NOTHING`

// Seal encrypts a key for receiptID without storing it (the degraded-mode journal keeps it).
func (w *WebhookKeys) Seal(receiptID, secret string) ([]byte, []byte, error) {
	nonce := make([]byte, w.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, nil, err
	}
	return nonce, w.aead.Seal(nil, nonce, []byte(secret), []byte(receiptID)), nil
}

// SaveSealed stores an already sealed key unless one is stored (journal replay).
func (w *WebhookKeys) SaveSealed(ctx context.Context, receiptID string, nonce, sealed []byte) error {
	_, err := w.pool.Exec(ctx, insertKeys, []string{receiptID}, [][]byte{nonce}, [][]byte{sealed})
	if err != nil {
		return fmt.Errorf("save webhook key: %w", err)
	}
	return nil
}

// Open decrypts a sealed key of receiptID (as read alongside a claimed notification).
func (w *WebhookKeys) Open(receiptID string, nonce, sealed []byte) (string, error) {
	pt, err := w.aead.Open(nil, nonce, sealed, []byte(receiptID))
	if err != nil {
		return "", fmt.Errorf("decrypt webhook key of %s: %w", receiptID, err)
	}
	return string(pt), nil
}

// Get returns the key for receiptID, or ErrNotFound.
func (w *WebhookKeys) Get(ctx context.Context, receiptID string) (string, error) {
	var nonce, ct []byte
	err := w.pool.QueryRow(ctx, `SELECT nonce, ciphertext FROM receipt_webhook_keys WHERE receipt_id = $1`, receiptID).Scan(&nonce, &ct)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("read webhook key: %w", err)
	}
	pt, err := w.aead.Open(nil, nonce, ct, []byte(receiptID))
	if err != nil {
		return "", fmt.Errorf("decrypt webhook key of %s: %w", receiptID, err)
	}
	return string(pt), nil
}
