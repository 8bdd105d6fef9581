package readmodels

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// SessionsEndedChannel is the LISTEN/NOTIFY channel that announces sessions ended before their
// expiry (logout, logout-all) to every instance, so that their open streams end (DESIGN 10).
const SessionsEndedChannel = "payledger_sessions_ended"

// Sessions keeps the admin sessions that ended before their token expired: a logged-out token id
// (logout) and, per wallet, the newest issue time ended by logout-all. Rows are kept until the
// tokens they end would have expired anyway, then deleted.
type Sessions struct{ pool *pgxpool.Pool }

// NewSessions returns the session revocation store on pool.
func NewSessions(pool *pgxpool.Pool) *Sessions { return &Sessions{pool: pool} }

// Revoke ends the token with id tokenID, which expires at expiresAt.
func (s *Sessions) Revoke(ctx context.Context, tokenID string, expiresAt, now time.Time) error {
	// The NOTIFY (at commit, to every instance) ends the session's open streams.
	_, err := s.pool.Exec(ctx, `WITH gone AS (DELETE FROM revoked_sessions WHERE expires_at < $3),
			n AS (SELECT pg_notify('`+SessionsEndedChannel+`', ''))
		INSERT INTO revoked_sessions (token_id, expires_at) SELECT $1, $2 FROM n ON CONFLICT (token_id) DO NOTHING`,
		tokenID, expiresAt, now)
	if err != nil {
		return fmt.Errorf("revoke session: %w", err)
	}
	return nil
}

// RevokeAll ends every session of wallet issued at or before issuedThrough, and every session
// that carries a cutoff read before it (Cutoff): the wallet's cutoff moves past issuedThrough and
// always at least a microsecond past its last value, whatever the calling instance's clock says
// (one running behind otherwise left the cutoff where it was, and the sessions signed in since
// the last logout-all outlived this one). Sessions last at most ttl, so the cutoff is kept until
// issuedThrough+ttl. Other wallets' cutoffs past that time are deleted (every session they ended
// has expired), as logged-out tokens are: anyone can sign in with a new wallet, so kept for ever
// they grew the table without bound.
func (s *Sessions) RevokeAll(ctx context.Context, wallet string, issuedThrough time.Time, ttl time.Duration) error {
	_, err := s.pool.Exec(ctx, `WITH gone AS (DELETE FROM wallet_session_cutoffs WHERE expires_at < $2 AND wallet <> $1),
			n AS (SELECT pg_notify('`+SessionsEndedChannel+`', ''))
		INSERT INTO wallet_session_cutoffs (wallet, revoked_through, expires_at) SELECT $1, $2, $3 FROM n
		ON CONFLICT (wallet) DO UPDATE SET
			revoked_through = GREATEST(wallet_session_cutoffs.revoked_through + interval '1 microsecond', EXCLUDED.revoked_through),
			expires_at = GREATEST(wallet_session_cutoffs.expires_at, EXCLUDED.expires_at)`,
		wallet, issuedThrough, issuedThrough.Add(ttl))
	if err != nil {
		return fmt.Errorf("revoke sessions of wallet: %w", err)
	}
	return nil
}

// NoCutoff is Cutoff's answer for a wallet without a logout-all in force: before every cutoff.
var NoCutoff = time.Unix(0, 0).UTC()

// Cutoff is the wallet's logout-all cutoff now (NoCutoff without one). A session issued after
// reading it is ended exactly by the logout-alls that come after: its check passes
// AfterCutoff(cutoff) to Revoked, and each RevokeAll moves the cutoff past it. The order is the
// database's order of the two statements, not the instances' clocks.
func (s *Sessions) Cutoff(ctx context.Context, wallet string) (time.Time, error) {
	var cut time.Time
	err := s.pool.QueryRow(ctx, `SELECT COALESCE((SELECT revoked_through FROM wallet_session_cutoffs WHERE wallet = $1), $2)`,
		wallet, NoCutoff).Scan(&cut)
	if err != nil {
		return time.Time{}, fmt.Errorf("read the wallet's session cutoff: %w", err)
	}
	return cut, nil
}

// AfterCutoff is the issue time Revoked is given for a session issued after reading cutoff
// (Cutoff): just past it (revoked_through keeps whole microseconds), so only a later RevokeAll,
// which moves the cutoff at least a microsecond on, ends the session.
func AfterCutoff(cutoff time.Time) time.Time { return cutoff.Add(time.Microsecond) }

// Revoked reports whether the session with tokenID, of wallet, issued at issuedAt, was ended: by
// a logout of tokenID or a cutoff at or past issuedAt (a session that carries the cutoff it was
// issued after is checked at AfterCutoff of it).
func (s *Sessions) Revoked(ctx context.Context, tokenID, wallet string, issuedAt time.Time) (bool, error) {
	var revoked bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM revoked_sessions WHERE token_id = $1)
		OR EXISTS (SELECT 1 FROM wallet_session_cutoffs WHERE wallet = $2 AND revoked_through >= $3)`,
		tokenID, wallet, issuedAt).Scan(&revoked)
	if err != nil {
		return false, fmt.Errorf("check session: %w", err)
	}
	return revoked, nil
}
