package readmodels

import (
	"context"
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

// Issue records a new nonce and deletes the expired ones (of every wallet): an expired nonce can
// never sign anyone in, so keeping it only grows the table.
func (n *Nonces) Issue(ctx context.Context, ln LoginNonce) error {
	_, err := n.pool.Exec(ctx, `WITH gone AS (DELETE FROM auth_nonces WHERE expires_at < $3)
		INSERT INTO auth_nonces (nonce, wallet, issued_at, expires_at) VALUES ($1,$2,$3,$4)`,
		ln.Nonce, ln.Wallet, ln.IssuedAt, ln.ExpiresAt)
	if err != nil {
		return fmt.Errorf("issue nonce: %w", err)
	}
	return nil
}

// Unused returns wallet's unused nonces that are still valid at now, newest first, at most max;
// with a nonce given, only that one. Reading consumes nothing: a login consumes the nonce its
// signature verifies against (Consume), so a request without a valid signature cannot use up
// someone else's nonce.
func (n *Nonces) Unused(ctx context.Context, wallet, nonce string, now time.Time, max int) ([]LoginNonce, error) {
	rows, err := n.pool.Query(ctx, `SELECT nonce, issued_at, expires_at FROM auth_nonces
		WHERE wallet = $1 AND used_at IS NULL AND expires_at > $3 AND ($2 = '' OR nonce = $2)
		ORDER BY seq DESC LIMIT $4`, wallet, nonce, now, max)
	if err != nil {
		return nil, fmt.Errorf("read nonces: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (LoginNonce, error) {
		ln := LoginNonce{Wallet: wallet}
		return ln, r.Scan(&ln.Nonce, &ln.IssuedAt, &ln.ExpiresAt)
	})
	if err != nil {
		return nil, fmt.Errorf("read nonces: %w", err)
	}
	return out, nil
}

// Consume marks wallet's nonce used, once: a nonce that is unknown, already used or expired at
// now is ErrNotFound (two logins racing with one signature: one wins).
func (n *Nonces) Consume(ctx context.Context, wallet, nonce string, now time.Time) error {
	tag, err := n.pool.Exec(ctx, `UPDATE auth_nonces SET used_at = $3
		WHERE nonce = $2 AND wallet = $1 AND used_at IS NULL AND expires_at > $3`, wallet, nonce, now)
	if err != nil {
		return fmt.Errorf("consume nonce: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return ErrNotFound
	}
	return nil
}
