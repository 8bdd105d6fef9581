package readmodels

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// LiveWindow is how recent a heartbeat must be for a user to count as live (spec, Limits).
const LiveWindow = 2 * time.Minute

// User is a user's profile, presence and XP (DESIGN 8). Wallets are lower-case.
type User struct {
	Wallet        string
	DisplayName   string
	PfpURL        string
	Domains       []string
	Platforms     []string
	Languages     []string
	SpacePublic   bool
	Live          bool // the stored flag; LiveAt says whether the user is live at a given time
	SpaceURL      string
	Platform      string
	LiveSince     *time.Time
	LastHeartbeat *time.Time
	LastSeen      *time.Time
	XP            int64
}

// LiveAt reports whether u is live at now: the live flag set and a heartbeat within LiveWindow.
func (u User) LiveAt(now time.Time) bool {
	return u.Live && u.LastHeartbeat != nil && now.Sub(*u.LastHeartbeat) <= LiveWindow
}

// Presence is u's presence at now as others see it: live, the last heartbeat and lastSeen,
// withheld (false, nil, nil) unless u lists itself publicly (SpacePublic, the spec's "controls
// public live listing"): a user out of /api/users/live is not shown live in searches, GraphQL or
// follows. lastSeen is withheld with the heartbeat: only a heartbeat writes it, with the same
// time, so it told others when a private user's last heartbeat was to the millisecond.
func (u User) Presence(now time.Time) (live bool, lastHeartbeat, lastSeen *time.Time) {
	if !u.SpacePublic {
		return false, nil, nil
	}
	return u.LiveAt(now), u.LastHeartbeat, u.LastSeen
}

// ProfilePatch holds the profile fields to change; nil fields stay as they are.
type ProfilePatch struct {
	DisplayName *string
	PfpURL      *string
	Domains     *[]string
	Platforms   *[]string
	Languages   *[]string
	SpacePublic *bool
}

// Presence is a heartbeat: whether the user is live, and where.
type Presence struct {
	Live     bool
	SpaceURL *string
	Platform *string
}

// UserQuery is a search (spec, GET /api/users/search); Limit and Scan are already clamped.
type UserQuery struct {
	Q                             string
	Domains, Platforms, Languages []string
	MinXP, MaxXP                  *int64
	Live                          bool // only users live at Now with spacePublic
	Limit, Scan                   int
	Now                           time.Time
}

// ErrSelfFollow is a follow of one's own wallet.
var ErrSelfFollow = errors.New("a wallet cannot follow itself")

// MaxFollowing bounds how many wallets one wallet follows. Any address can be followed, profile
// or not, so without a bound one session adds a row per request for ever (600 a minute at the
// default rate limit), and every count and page of that wallet's follows grows with it.
const MaxFollowing = 5_000

// ErrTooManyFollows is a new follow of a wallet that follows MaxFollowing wallets already.
var ErrTooManyFollows = fmt.Errorf("a wallet follows at most %d wallets; unfollow one before following another", MaxFollowing)

// Users stores profiles, presence and follows; XP is written by the users projection.
type Users struct {
	pool *pgxpool.Pool
	top  *topUsers // nil: searches read the database (KeepTopInMemory)
}

// NewUsers returns the user store on pool.
func NewUsers(pool *pgxpool.Pool) *Users { return &Users{pool: pool} }

const userColumns = `wallet, display_name, pfp_url, domains, platforms, languages, space_public, live,
	space_url, platform, live_since, last_heartbeat, last_seen, xp`

// userCounts is a written user's follow counts, returned with its row: the window of the
// instance that wrote it is patched with both (users_top_patch.go).
const userCounts = `(SELECT count(*) FROM follows WHERE followee = u.wallet), (SELECT count(*) FROM follows WHERE follower = u.wallet)`

func scanUser(row pgx.Row, extra ...any) (User, error) {
	var u User
	err := row.Scan(append([]any{&u.Wallet, &u.DisplayName, &u.PfpURL, &u.Domains, &u.Platforms, &u.Languages,
		&u.SpacePublic, &u.Live, &u.SpaceURL, &u.Platform, &u.LiveSince, &u.LastHeartbeat, &u.LastSeen, &u.XP}, extra...)...)
	return u, err
}

// Get returns wallet's user, or ErrNotFound.
func (s *Users) Get(ctx context.Context, wallet string) (User, error) {
	u, err := scanUser(s.pool.QueryRow(ctx, `SELECT `+userColumns+` FROM users WHERE wallet = $1`, strings.ToLower(wallet)))
	if errors.Is(err, pgx.ErrNoRows) {
		return User{}, ErrNotFound
	}
	if err != nil {
		return User{}, fmt.Errorf("read user: %w", err)
	}
	return u, nil
}

// UpdateProfile applies patch to wallet's profile (creating the user) and returns the user.
func (s *Users) UpdateProfile(ctx context.Context, wallet string, p ProfilePatch, now time.Time) (User, error) {
	var c FollowCounts
	var l lowered // as searches compare the user
	u, err := scanUser(s.pool.QueryRow(ctx, `INSERT INTO users AS u (wallet, display_name, pfp_url, domains, platforms, languages, space_public, updated_at)
		VALUES ($1, coalesce($2, ''), coalesce($3, ''), coalesce($4, '{}'::text[]), coalesce($5, '{}'::text[]), coalesce($6, '{}'::text[]), coalesce($7, false), $8)
		ON CONFLICT (wallet) DO UPDATE SET
			display_name = coalesce($2, u.display_name), pfp_url = coalesce($3, u.pfp_url),
			domains = coalesce($4, u.domains), platforms = coalesce($5, u.platforms), languages = coalesce($6, u.languages),
			space_public = coalesce($7, u.space_public), updated_at = $8
		RETURNING `+userColumns+`, `+userCounts+`, `+loweredColumns,
		strings.ToLower(wallet), p.DisplayName, p.PfpURL, p.Domains, p.Platforms, p.Languages, p.SpacePublic, now), append([]any{&c.Followers, &c.Following}, l.dest()...)...)
	if err != nil {
		return User{}, fmt.Errorf("update profile: %w", err)
	}
	s.wroteUser(u, c, l)
	return u, nil
}

// Heartbeat records presence: lastHeartbeat and lastSeen become now, liveSince is set when the
// user goes live (and cleared when not live); absent spaceUrl/platform keep their values.
func (s *Users) Heartbeat(ctx context.Context, wallet string, p Presence, now time.Time) (User, error) {
	var c FollowCounts
	var l lowered // as searches compare the user
	u, err := scanUser(s.pool.QueryRow(ctx, `INSERT INTO users AS u (wallet, live, space_url, platform, live_since, last_heartbeat, last_seen, updated_at)
		VALUES ($1, $2, coalesce($3, ''), coalesce($4, ''), CASE WHEN $2 THEN $5::timestamptz END, $5, $5, $5)
		ON CONFLICT (wallet) DO UPDATE SET
			live = $2, space_url = coalesce($3, u.space_url), platform = coalesce($4, u.platform),
			live_since = CASE WHEN NOT $2 THEN NULL
				WHEN u.live AND u.live_since IS NOT NULL AND u.last_heartbeat >= $6 THEN u.live_since
				ELSE $5 END,
			last_heartbeat = $5, last_seen = $5, updated_at = $5
		RETURNING `+userColumns+`, `+userCounts+`, `+loweredColumns,
		strings.ToLower(wallet), p.Live, p.SpaceURL, p.Platform, now, now.Add(-LiveWindow)), append([]any{&c.Followers, &c.Following}, l.dest()...)...)
	if err != nil {
		return User{}, fmt.Errorf("record presence: %w", err)
	}
	s.wroteUser(u, c, l)
	return u, nil
}

// Follow makes follower follow followee (again: no change). Errors: ErrSelfFollow,
// ErrTooManyFollows (a new follow past MaxFollowing; the count and the insert run under a
// per-follower lock, so racing follows cannot pass it).
func (s *Users) Follow(ctx context.Context, follower, followee string, now time.Time) error {
	follower, followee = strings.ToLower(follower), strings.ToLower(followee)
	if follower == followee {
		return ErrSelfFollow
	}
	added, err := s.follow(ctx, follower, followee, now)
	if err != nil {
		return err
	}
	if added {
		s.wroteFollow(ctx, follower, followee)
	}
	return nil
}

func (s *Users) follow(ctx context.Context, follower, followee string, now time.Time) (added bool, err error) {
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('payledger follows:' || $1::text, 0))`, follower); err != nil {
			return err
		}
		var exists bool
		var n int
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM follows WHERE follower = $1 AND followee = $2),
				(SELECT count(*) FROM follows WHERE follower = $1)`, follower, followee).Scan(&exists, &n); err != nil {
			return err
		}
		if exists {
			return nil
		}
		if n >= MaxFollowing {
			return ErrTooManyFollows
		}
		tag, err := tx.Exec(ctx, `INSERT INTO follows (follower, followee, created_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
			follower, followee, now)
		added = err == nil && tag.RowsAffected() > 0
		return err
	})
	if err != nil && !errors.Is(err, ErrTooManyFollows) {
		return false, fmt.Errorf("follow: %w", err)
	}
	return added, err
}

// Unfollow ends follower's follow of followee; it reports whether there was one. Errors: ErrSelfFollow.
func (s *Users) Unfollow(ctx context.Context, follower, followee string) (bool, error) {
	follower, followee = strings.ToLower(follower), strings.ToLower(followee)
	if follower == followee {
		return false, ErrSelfFollow
	}
	tag, err := s.pool.Exec(ctx, `DELETE FROM follows WHERE follower = $1 AND followee = $2`, follower, followee)
	if err != nil {
		return false, fmt.Errorf("unfollow: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return false, nil
	}
	s.wroteFollow(ctx, follower, followee)
	return true, nil
}

// Follows reports whether follower follows followee.
func (s *Users) Follows(ctx context.Context, follower, followee string) (bool, error) {
	var ok bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM follows WHERE follower = $1 AND followee = $2)`,
		strings.ToLower(follower), strings.ToLower(followee)).Scan(&ok)
	return ok, err
}

// Search reads the q.Scan highest-XP users (ties by wallet), keeps those that pass every filter,
// and returns the first q.Limit of them with how many passed: from the window in memory when it
// is kept (KeepTopInMemory), otherwise with one statement, one round trip.
//
// The statement's text depends only on which filters are present and on Limit and Scan, which
// are written into it as numbers (clamped by the caller): the pool's cached prepared statement
// then gets PostgreSQL's generic plan (the index scan of users_xp_search, no sort) and is not planned
// again per request, which a LIMIT given as a parameter prevented (its generic plan assumed a
// large limit). Without a filter that needs the row, the page is the first Limit rows of the
// index scan and total an index-only count over the scanned entries, so only Limit rows are read
// from the table instead of Scan.
func (s *Users) Search(ctx context.Context, q UserQuery) ([]User, int, error) {
	if window, ok, err := s.topWindow(ctx, q.Scan); err != nil || ok {
		if err != nil {
			return nil, 0, fmt.Errorf("search users: %w", err)
		}
		lq, err := s.lowerQuery(ctx, q)
		if err != nil {
			return nil, 0, fmt.Errorf("search users: %w", err)
		}
		users, total := searchTop(window, lq)
		return users, total, nil
	}
	sql, args := searchSQL(q)
	rows, err := ReadPool(ctx, s.pool).Query(ctx, sql, args...)
	if err != nil {
		return nil, 0, fmt.Errorf("search users: %w", err)
	}
	defer rows.Close()
	users := make([]User, 0, q.Limit)
	total := 0
	for rows.Next() {
		u, err := scanUser(rows, &total)
		if err != nil {
			return nil, 0, fmt.Errorf("search users: %w", err)
		}
		users = append(users, u)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("search users: %w", err)
	}
	if len(users) == 0 {
		total = 0
	}
	return users, total, nil
}

// searchSQL is the search statement and its arguments (see Search).
//
// With q or live, the cheap filters (q, XP bounds, live) are evaluated on an index-only scan of
// users_xp_search (migration 020: the order plus the lower-case display name and the presence
// columns), and only the scanned rows that pass them are read from the table, by wallet: for the
// array filters (all of them, total included) or, without array filters, for the page alone.
// Without q and live every scanned row may pass, so the array filters read the scanned rows from
// the table in the index order, and without any filter that needs the row the page is the first
// Limit rows of the index scan and total an index-only count.
func searchSQL(q UserQuery) (string, []any) {
	cheap, arrays, args := searchConds(q)
	where := func(conds []string) string {
		if len(conds) == 0 {
			return ""
		}
		return " WHERE " + strings.Join(conds, " AND ")
	}
	scan, limit := strconv.Itoa(q.Scan), strconv.Itoa(q.Limit)
	if q.Q != "" || q.Live {
		head := `WITH scanned AS (SELECT xp, wallet, display_name_lower, live, space_public, last_heartbeat
				FROM users ORDER BY xp DESC, wallet LIMIT ` + scan + `),
			cand AS (SELECT xp, wallet FROM scanned` + where(cheap) + `)`
		if len(arrays) == 0 {
			return head + `
			SELECT ` + userColumns + `, (SELECT count(*) FROM cand)
			FROM (SELECT wallet FROM cand ORDER BY xp DESC, wallet LIMIT ` + limit + `) p JOIN users u USING (wallet)
			ORDER BY u.xp DESC, u.wallet`, args
		}
		return head + `,
			passed AS (SELECT u.* FROM cand JOIN users u USING (wallet)` + where(arrays) + `)
			SELECT ` + userColumns + `, count(*) OVER () FROM passed ORDER BY xp DESC, wallet LIMIT ` + limit, args
	}
	filter := where(append(cheap, arrays...))
	if len(arrays) == 0 {
		// XP bounds at most: the count reads (xp, wallet) from the index alone.
		return `SELECT ` + userColumns + `, (SELECT count(*) FROM (SELECT xp FROM users ORDER BY xp DESC, wallet LIMIT ` + scan + `) c` + filter + `)
			FROM (SELECT * FROM users ORDER BY xp DESC, wallet LIMIT ` + scan + `) s` + filter + `
			ORDER BY xp DESC, wallet LIMIT ` + limit, args
	}
	return `WITH scanned AS (SELECT * FROM users ORDER BY xp DESC, wallet LIMIT ` + scan + `),
		passed AS (SELECT * FROM scanned` + filter + `)
		SELECT ` + userColumns + `, count(*) OVER () FROM passed ORDER BY xp DESC, wallet LIMIT ` + limit, args
}

// searchConds are the search's conditions with their arguments ($1...): cheap ones read the
// users row's plain columns (the pattern, XP bounds, live), arrays compare its tag arrays.
func searchConds(q UserQuery) (cheap, arrays []string, args []any) {
	arg := func(v any) string { args = append(args, v); return "$" + strconv.Itoa(len(args)) }
	pattern := ""
	if q.Q != "" {
		// Wallets are stored lower-case (CHECK); display_name_lower is lower(display_name), and q
		// is lowered by the same lower() (not Go's: they differ past ASCII under a C or ICU
		// locale), as the window's search does (lowerQuery).
		pattern = "lower(" + arg("%"+escapeLike(q.Q)+"%") + "::text)"
		cheap = append(cheap, "(wallet LIKE "+pattern+" OR display_name_lower LIKE "+pattern+")")
	}
	for _, f := range []struct {
		col  string
		vals []string
	}{{"domains", q.Domains}, {"platforms", q.Platforms}, {"languages", q.Languages}} {
		if len(f.vals) > 0 {
			// Case-insensitive, as q is: both sides lowered by lower(), as the window's are.
			arrays = append(arrays, "ARRAY(SELECT lower(t) FROM unnest("+f.col+") t) @> ARRAY(SELECT lower(t) FROM unnest("+
				arg(f.vals)+"::text[]) t)")
		}
	}
	if q.MinXP != nil {
		cheap = append(cheap, "xp >= "+arg(*q.MinXP))
	}
	if q.MaxXP != nil {
		cheap = append(cheap, "xp <= "+arg(*q.MaxXP))
	}
	if q.Live {
		cheap = append(cheap, "live AND space_public AND last_heartbeat >= "+arg(q.Now.Add(-LiveWindow)))
	}
	return cheap, arrays, args
}

// Live returns the users live at now with spacePublic: live flag set and a heartbeat within
// LiveWindow, most recent heartbeat first.
func (s *Users) Live(ctx context.Context, now time.Time, limit int) ([]User, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+userColumns+` FROM users
		WHERE live AND space_public AND last_heartbeat >= $1
		ORDER BY last_heartbeat DESC, wallet LIMIT $2`, now.Add(-LiveWindow), limit)
	if err != nil {
		return nil, fmt.Errorf("live users: %w", err)
	}
	defer rows.Close()
	users := []User{}
	for rows.Next() {
		u, err := scanUser(rows)
		if err != nil {
			return nil, fmt.Errorf("live users: %w", err)
		}
		users = append(users, u)
	}
	return users, rows.Err()
}
