package readmodels

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Follow is one follow seen from a wallet: the other wallet's user (empty fields and 0 XP when
// it has no profile) and when the follow was made.
type Follow struct {
	User User
	At   time.Time
}

// FollowCounts is how many wallets follow a wallet and how many it follows.
type FollowCounts struct{ Followers, Following int }

// Leaderboard returns the first highest-XP users, ties by wallet.
func (s *Users) Leaderboard(ctx context.Context, first int) ([]User, error) {
	if window, ok, err := s.topWindow(ctx, first); err != nil || ok {
		if err != nil {
			return nil, fmt.Errorf("leaderboard: %w", err)
		}
		users := make([]User, min(first, len(window.users)))
		for i := range users {
			users[i] = window.users[i].User
		}
		return users, nil
	}
	return s.list(ctx, "leaderboard", `SELECT `+userColumns+` FROM users ORDER BY xp DESC, wallet LIMIT $1`, first)
}

func (s *Users) list(ctx context.Context, what, sql string, args ...any) ([]User, error) {
	rows, err := s.pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer rows.Close()
	users := []User{}
	for rows.Next() {
		u, err := scanUser(rows)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		users = append(users, u)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return users, nil
}

// FollowPage returns up to first follows of wallet in the other wallet's order, starting after
// the wallet after ("" from the start): the wallets it follows, or with followers the wallets
// following it. One query, whatever first is.
func (s *Users) FollowPage(ctx context.Context, wallet string, followers bool, first int, after string) ([]Follow, error) {
	self, other := "follower", "followee"
	if followers {
		self, other = other, self
	}
	rows, err := s.pool.Query(ctx, `SELECT f.`+other+`, coalesce(u.display_name, ''), coalesce(u.pfp_url, ''),
			coalesce(u.domains, '{}'), coalesce(u.platforms, '{}'), coalesce(u.languages, '{}'), coalesce(u.space_public, false),
			coalesce(u.live, false), coalesce(u.space_url, ''), coalesce(u.platform, ''), u.live_since, u.last_heartbeat,
			u.last_seen, coalesce(u.xp, 0), f.created_at
		FROM follows f LEFT JOIN users u ON u.wallet = f.`+other+`
		WHERE f.`+self+` = $1 AND f.`+other+` > $2 ORDER BY f.`+other+` LIMIT $3`,
		strings.ToLower(wallet), strings.ToLower(after), first)
	if err != nil {
		return nil, fmt.Errorf("follows: %w", err)
	}
	defer rows.Close()
	page := []Follow{}
	for rows.Next() {
		var f Follow
		if f.User, err = scanUser(rows, &f.At); err != nil {
			return nil, fmt.Errorf("follows: %w", err)
		}
		page = append(page, f)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("follows: %w", err)
	}
	return page, nil
}

// FollowCounts returns the follow counts of every wallet given (zero for a wallet nobody
// follows and that follows nobody), keyed by lower-case wallet. One query for any number of
// wallets (the GraphQL loader batches a request's counts into it), and none when every wallet is
// in the window held in memory (a leaderboard's are).
func (s *Users) FollowCounts(ctx context.Context, wallets []string) (map[string]FollowCounts, error) {
	if counts, ok, err := s.topCounts(ctx, wallets); err != nil || ok {
		if err != nil {
			return nil, fmt.Errorf("follow counts: %w", err)
		}
		return counts, nil
	}
	counts, err := s.readCounts(ctx, wallets)
	if err != nil {
		return nil, fmt.Errorf("follow counts: %w", err)
	}
	return counts, nil
}

// readCounts reads the follow counts of wallets from the database, keyed by lower-case wallet.
func (s *Users) readCounts(ctx context.Context, wallets []string) (map[string]FollowCounts, error) {
	rows, err := s.pool.Query(ctx, `SELECT w,
			(SELECT count(*) FROM follows WHERE followee = w), (SELECT count(*) FROM follows WHERE follower = w)
		FROM unnest($1::text[]) w`, lower(wallets))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make(map[string]FollowCounts, len(wallets))
	for rows.Next() {
		var w string
		var c FollowCounts
		if err := rows.Scan(&w, &c.Followers, &c.Following); err != nil {
			return nil, err
		}
		out[w] = c
	}
	return out, rows.Err()
}

func lower(wallets []string) []string {
	out := make([]string, len(wallets))
	for i, w := range wallets {
		out[i] = strings.ToLower(w)
	}
	return out
}

// topCounts answers FollowCounts from the window when it holds every wallet.
func (s *Users) topCounts(ctx context.Context, wallets []string) (map[string]FollowCounts, bool, error) {
	window, ok, err := s.topWindow(ctx, 0)
	if err != nil || !ok {
		return nil, false, err
	}
	out := make(map[string]FollowCounts, len(wallets))
	for _, w := range wallets {
		w = strings.ToLower(w)
		c, ok := window.counts[w]
		if !ok {
			return nil, false, nil
		}
		out[w] = c
	}
	return out, true, nil
}
