package readmodels

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// LoginNonce is an issued admin-login challenge.
type LoginNonce struct {
	Nonce     string
	Wallet    string
	IssuedAt  time.Time
	ExpiresAt time.Time
}

// Nonces stores single-use login nonces.
type Nonces struct{ pool *pgxpool.Pool }

// NewNonces returns the nonce store on pool.
func NewNonces(pool *pgxpool.Pool) *Nonces { return &Nonces{pool: pool} }

// Issue records a new nonce.
func (n *Nonces) Issue(ctx context.Context, ln LoginNonce) error {
	_, err := n.pool.Exec(ctx, `INSERT INTO auth_nonces (nonce, wallet, issued_at, expires_at) VALUES ($1,$2,$3,$4)`,
		ln.Nonce, ln.Wallet, ln.IssuedAt, ln.ExpiresAt)
	if err != nil {
		return fmt.Errorf("issue nonce: %w", err)
	}
	return nil
}

// Consume marks wallet's nonce used and returns it; with an empty nonce it takes the newest
// unused one. A nonce is consumed whatever happens next, so a failed login cannot be retried with
// it. Unknown or already used: ErrNotFound.
func (n *Nonces) Consume(ctx context.Context, wallet, nonce string, now time.Time) (LoginNonce, error) {
	ln := LoginNonce{Wallet: wallet}
	err := n.pool.QueryRow(ctx, `UPDATE auth_nonces SET used_at = $3 WHERE nonce = (
			SELECT nonce FROM auth_nonces WHERE wallet = $1 AND used_at IS NULL AND ($2 = '' OR nonce = $2)
			ORDER BY seq DESC LIMIT 1 FOR UPDATE SKIP LOCKED)
		RETURNING nonce, issued_at, expires_at`, wallet, nonce, now).Scan(&ln.Nonce, &ln.IssuedAt, &ln.ExpiresAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return LoginNonce{}, ErrNotFound
	}
	if err != nil {
		return LoginNonce{}, fmt.Errorf("consume nonce: %w", err)
	}
	return ln, nil
}
