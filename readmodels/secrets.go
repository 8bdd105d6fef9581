package readmodels

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/eventstore/groupcommit"
)

// WebhookKeys stores the API key that signs each receipt's webhooks, encrypted with AES-256-GCM.
// The receipt id is the additional data, so a ciphertext cannot be moved to another receipt.
type WebhookKeys struct {
	pool                *pgxpool.Pool
	aead                cipher.AEAD
	sameClusterAsEvents bool
	group               *groupcommit.Group[sealedKey, struct{}]
}

// sealedKey is one encrypted key waiting to be stored.
type sealedKey struct {
	receiptID         string
	nonce, ciphertext []byte
}

// NewWebhookKeys returns the store; key is SECRETS_KEY (32 bytes). sameClusterAsEvents says that
// events are appended to this same database after each Save (see Save).
func NewWebhookKeys(pool *pgxpool.Pool, key []byte, sameClusterAsEvents bool) (*WebhookKeys, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("webhook keys: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("webhook keys: %w", err)
	}
	w := &WebhookKeys{pool: pool, aead: aead, sameClusterAsEvents: sameClusterAsEvents}
	// Concurrent orders share one insert and one (asynchronous) commit.
	w.group = &groupcommit.Group[sealedKey, struct{}]{Slots: 2, MaxSize: 256, Flush: w.flush}
	return w, nil
}

// Save stores the key for receiptID unless one is stored already (the first capture stands).
//
// With sameClusterAsEvents (the PostgreSQL event store on this database), the insert commits
// without waiting for its own WAL flush: the receipt's event is appended right after with a
// synchronous commit, and that flush writes all earlier WAL, this commit record included. So
// the key is durable before the receipt exists, one fsync cheaper.
func (w *WebhookKeys) Save(ctx context.Context, receiptID, secret string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	nonce := make([]byte, w.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return err
	}
	ct := w.aead.Seal(nil, nonce, []byte(secret), []byte(receiptID))
	_, err := w.group.Do(sealedKey{receiptID: receiptID, nonce: nonce, ciphertext: ct})
	return err
}

const insertKeys = `INSERT INTO receipt_webhook_keys (receipt_id, nonce, ciphertext)
	SELECT * FROM unnest($1::text[], $2::bytea[], $3::bytea[]) ON CONFLICT DO NOTHING`

// flush stores a group of keys in one statement.
func (w *WebhookKeys) flush(batch []*groupcommit.Call[sealedKey, struct{}]) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ids, nonces, cts := make([]string, len(batch)), make([][]byte, len(batch)), make([][]byte, len(batch))
	for i, c := range batch {
		ids[i], nonces[i], cts[i] = c.Item.receiptID, c.Item.nonce, c.Item.ciphertext
	}
	var err error
	if w.sameClusterAsEvents {
		b := &pgx.Batch{}
		b.Queue(`BEGIN`)
		b.Queue(`SET LOCAL synchronous_commit TO off`)
		b.Queue(insertKeys, ids, nonces, cts)
		b.Queue(`COMMIT`)
		err = w.pool.SendBatch(ctx, b).Close()
	} else {
		_, err = w.pool.Exec(ctx, insertKeys, ids, nonces, cts)
	}
	if err != nil {
		err = fmt.Errorf("save webhook key: %w", err)
		for _, c := range batch {
			c.Err = err
		}
	}
}

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
	_, err := w.pool.Exec(ctx, `INSERT INTO receipt_webhook_keys (receipt_id, nonce, ciphertext) VALUES ($1,$2,$3) ON CONFLICT DO NOTHING`, receiptID, nonce, sealed)
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

// Idempotency remembers which receipt an Idempotency-Key created, for 24 hours.
type Idempotency struct{ pool *pgxpool.Pool }

// NewIdempotency returns the store on pool.
func NewIdempotency(pool *pgxpool.Pool) *Idempotency { return &Idempotency{pool: pool} }

// IdempotencyTTL is how long a key is remembered.
const IdempotencyTTL = 24 * 60 * 60 // seconds

// Claim binds (wallet, key) to receiptID and requestHash unless a live binding exists; it returns
// the binding in force (the new one, or the earlier one).
func (i *Idempotency) Claim(ctx context.Context, wallet, key, requestHash, receiptID string) (string, string, error) {
	var hash, id string
	err := i.pool.QueryRow(ctx, `INSERT INTO idempotency_keys (wallet, key, request_hash, receipt_id, created_at)
		VALUES ($1, $2, $3, $4, now())
		ON CONFLICT (wallet, key) DO UPDATE SET request_hash = EXCLUDED.request_hash, receipt_id = EXCLUDED.receipt_id, created_at = now()
			WHERE idempotency_keys.created_at < now() - make_interval(secs => $5)
		RETURNING request_hash, receipt_id`, wallet, key, requestHash, receiptID, IdempotencyTTL).Scan(&hash, &id)
	if errors.Is(err, pgx.ErrNoRows) { // a live binding exists
		err = i.pool.QueryRow(ctx, `SELECT request_hash, receipt_id FROM idempotency_keys WHERE wallet = $1 AND key = $2`, wallet, key).Scan(&hash, &id)
	}
	if err != nil {
		return "", "", fmt.Errorf("claim idempotency key: %w", err)
	}
	return hash, id, nil
}
