package readmodels

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/payledger/payledger/internal/cache"
)

// UsersChangedChannel is the LISTEN/NOTIFY channel on which every statement that changes the
// users or follows table announces itself (migration 021's triggers: profiles, presence, XP,
// follows, rebuilds).
const UsersChangedChannel = "payledger_users_changed"

// TopUsersSize is how many of the highest-XP users are held in memory: the largest `scan` of a
// search (spec, Limits), so no search and no leaderboard ever needs a row below it.
const TopUsersSize = 1000

// topUsersMaxStale bounds how long after a change a search may still be answered from the window
// read before it. Heartbeats change the table all the time; reading the window again on every one
// would cost more than the searches it saves, so a changed window is read again at most this
// often, and only when a search needs it.
const topUsersMaxStale = 250 * time.Millisecond

// topUsers is the TopUsersSize highest-XP users (ties by wallet) and their follow counts, held
// in memory, so that a search filters them in the process instead of asking PostgreSQL (spec: the
// filters apply to the `scan` highest-XP users only), and a leaderboard with counts needs no
// query. It is trusted only while its Invalidations listener is connected, as Cache is; a lost
// listener drops it and the store reads the database again.
//
// The window is read lazily and once at a time: a search that finds it missing, or changed longer
// than maxStale ago, waits for one read that every concurrent search shares, and then takes it.
type topUsers struct {
	read     func(ctx context.Context) (*topWindow, error)
	maxStale time.Duration

	mu        sync.Mutex
	listening bool
	epoch     uint64     // bumped when listening starts or stops: a read begun before is not kept
	window    *topWindow // nil: not read yet (or dropped)
	staleAt   time.Time  // when a change was first announced after window's read began; zero: none
	loading   *topRead   // the read in flight
	pending   []topPatch // this instance's writes since the read in flight began (users_top_patch.go)
}

// topWindow is one read of the window: the users in order, and the follow counts of each.
type topWindow struct {
	users  []topUser
	counts map[string]FollowCounts
}

// topUser is a user of the window with what a search compares of it, lowered.
type topUser struct {
	User
	lower lowered
}

// lowered is what a search compares of a user, as PostgreSQL's lower() makes it, never Go's
// lowering (they differ past ASCII under a C or ICU locale): the display name (display_name_lower,
// for q) and the lists (the domains, platforms and languages filters, case-insensitive as q is).
type lowered struct {
	name                          string
	domains, platforms, languages []string
}

// loweredColumns reads lowered of the row u, into lowered.dest.
const loweredColumns = `u.display_name_lower, ARRAY(SELECT lower(t) FROM unnest(u.domains) t),
	ARRAY(SELECT lower(t) FROM unnest(u.platforms) t), ARRAY(SELECT lower(t) FROM unnest(u.languages) t)`

func (l *lowered) dest() []any { return []any{&l.name, &l.domains, &l.platforms, &l.languages} }

// shared is l holding u's own lists where lowering changed nothing (tags are mostly lower-case
// already): the window then holds one copy of them, not two.
func (l lowered) shared(u User) lowered {
	for _, p := range []struct {
		lowered *[]string
		own     []string
	}{
		{&l.domains, u.Domains}, {&l.platforms, u.Platforms}, {&l.languages, u.Languages}} {
		if slices.Equal(*p.lowered, p.own) {
			*p.lowered = p.own
		}
	}
	return l
}

// topRead is one read of the window that searches wait on.
type topRead struct {
	done    chan struct{}
	err     error
	staleAt time.Time // first change announced while it ran
}

func newTopUsers(read func(ctx context.Context) (*topWindow, error)) *topUsers {
	return &topUsers{read: read, maxStale: topUsersMaxStale}
}

// get returns the window, or ok false when it cannot be trusted (no listener) and the caller must
// read the database.
func (t *topUsers) get(ctx context.Context) (window *topWindow, ok bool, err error) {
	t.mu.Lock()
	for {
		if !t.listening {
			t.mu.Unlock()
			return nil, false, nil
		}
		if t.window != nil && (t.staleAt.IsZero() || time.Since(t.staleAt) < t.maxStale) {
			window = t.window
			t.mu.Unlock()
			return window, true, nil
		}
		r := t.loading
		if r == nil {
			r = t.startRead()
		}
		t.mu.Unlock()
		select {
		case <-r.done:
		case <-ctx.Done():
			return nil, false, ctx.Err()
		}
		if r.err != nil {
			return nil, false, r.err
		}
		t.mu.Lock()
		if t.listening && t.window != nil {
			// What this search waited for: even if a change came in while it was read, waiting
			// for yet another read would only chase a busy table.
			window = t.window
			t.mu.Unlock()
			return window, true, nil
		}
	}
}

// startRead begins reading the window; t.mu is held.
func (t *topUsers) startRead() *topRead {
	r := &topRead{done: make(chan struct{})}
	t.loading, t.pending = r, nil
	epoch := t.epoch
	go func() {
		// Not the search's context: the read is shared, and one search going away must not fail
		// the others.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		window, err := t.read(ctx)
		cancel()
		t.mu.Lock()
		defer t.mu.Unlock()
		t.loading = nil
		r.err = err
		if err == nil && epoch == t.epoch && t.listening {
			t.window, t.staleAt = t.landed(window), r.staleAt
		}
		t.pending = nil
		close(r.done)
	}()
	return r
}

// invalidate marks the window changed: it is read again once a search needs it and the change is
// maxStale old. A change announced while a read runs may have missed it, so that read's window
// starts out changed.
func (t *topUsers) invalidate(string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := time.Now()
	if t.staleAt.IsZero() {
		t.staleAt = now
	}
	if t.loading != nil && t.loading.staleAt.IsZero() {
		t.loading.staleAt = now
	}
}

func (t *topUsers) setListening(on bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.listening = on
	t.epoch++
	t.window, t.staleAt, t.pending = nil, time.Time{}, nil
}

// readTop reads the window, users and counts in one statement (one snapshot): the TopUsersSize
// highest-XP users, ties by wallet.
func (s *Users) readTop(ctx context.Context) (*topWindow, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+userColumns+`,
			(SELECT count(*) FROM follows WHERE followee = u.wallet), (SELECT count(*) FROM follows WHERE follower = u.wallet),
			`+loweredColumns+`
		FROM (SELECT * FROM users ORDER BY xp DESC, wallet LIMIT $1) u ORDER BY xp DESC, wallet`, TopUsersSize)
	if err != nil {
		return nil, fmt.Errorf("top users: %w", err)
	}
	defer rows.Close()
	w := &topWindow{users: make([]topUser, 0, TopUsersSize), counts: make(map[string]FollowCounts, TopUsersSize)}
	for rows.Next() {
		var c FollowCounts
		var l lowered
		u, err := scanUser(rows, append([]any{&c.Followers, &c.Following}, l.dest()...)...)
		if err != nil {
			return nil, fmt.Errorf("top users: %w", err)
		}
		w.users = append(w.users, topUser{User: u, lower: l.shared(u)})
		w.counts[u.Wallet] = c
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("top users: %w", err)
	}
	return w, nil
}

// KeepTopInMemory has searches and leaderboards answered from the highest-XP users held in
// memory, kept current by inv (NOTIFYs on UsersChangedChannel). Call it before inv runs.
func (s *Users) KeepTopInMemory(inv *cache.Invalidations) *Users {
	s.top = newTopUsers(s.readTop)
	inv.Register(UsersChangedChannel, cache.Subscriber{OnNotify: s.top.invalidate, OnListening: s.top.setListening})
	return s
}

// topWindow returns the in-memory window when it can answer a read of the n highest-XP users.
func (s *Users) topWindow(ctx context.Context, n int) (*topWindow, bool, error) {
	if s.top == nil || n < 0 || n > TopUsersSize { // a negative n is the database's to refuse, as without the window
		return nil, false, nil
	}
	return s.top.get(ctx) // its read's errors already say "top users"
}

// searchTop is Search over the window: the same filters as searchSQL, in the same order; q's
// text and lists are lowered as PostgreSQL lowers them (lowerQuery).
func searchTop(window *topWindow, q UserQuery) ([]User, int) {
	scanned := window.users[:min(q.Scan, len(window.users))]
	since := q.Now.Add(-LiveWindow)
	users := make([]User, 0, q.Limit)
	total := 0
	for i := range scanned {
		u := &scanned[i]
		if !passes(u, q, since) {
			continue
		}
		total++
		if len(users) < q.Limit {
			users = append(users, u.User)
		}
	}
	return users, total
}

func passes(u *topUser, q UserQuery, since time.Time) bool {
	switch {
	case q.Q != "" && !strings.Contains(u.Wallet, q.Q) && !strings.Contains(u.lower.name, q.Q):
		return false
	case q.MinXP != nil && u.XP < *q.MinXP, q.MaxXP != nil && u.XP > *q.MaxXP:
		return false
	case q.Live && !(u.Live && u.SpacePublic && u.LastHeartbeat != nil && !u.LastHeartbeat.Before(since)):
		return false
	}
	return containsAll(u.lower.domains, q.Domains) && containsAll(u.lower.platforms, q.Platforms) &&
		containsAll(u.lower.languages, q.Languages)
}

// containsAll is PostgreSQL's have @> want for text arrays.
func containsAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

// lowerQuery is q with its text and lists as PostgreSQL's lower() makes them, the lowering of
// the window's lowered, so that the window's search matches exactly what the database's search
// matches. lower() follows the database's locale (a C locale lowers ASCII only, ICU maps "İ" to
// "i̇", Go to "i"), so when any of them holds an upper-case ASCII letter or a non-ASCII character
// the database lowers them all in one round trip; plain ones are their own lower case under every
// locale and cost none.
func (s *Users) lowerQuery(ctx context.Context, q UserQuery) (UserQuery, error) {
	lists := []*[]string{&q.Domains, &q.Platforms, &q.Languages}
	plain := isPlainLower(q.Q)
	for _, l := range lists {
		for _, t := range *l {
			plain = plain && isPlainLower(t)
		}
	}
	if plain {
		return q, nil
	}
	err := s.pool.QueryRow(ctx, `SELECT lower($1::text), ARRAY(SELECT lower(t) FROM unnest($2::text[]) t),
		ARRAY(SELECT lower(t) FROM unnest($3::text[]) t), ARRAY(SELECT lower(t) FROM unnest($4::text[]) t)`,
		q.Q, q.Domains, q.Platforms, q.Languages).Scan(&q.Q, lists[0], lists[1], lists[2])
	if err != nil {
		return UserQuery{}, fmt.Errorf("lower q: %w", err)
	}
	return q, nil
}

// isPlainLower reports whether s holds no upper-case ASCII letter and no non-ASCII character: its
// own lower case under every locale.
func isPlainLower(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf || (s[i] >= 'A' && s[i] <= 'Z') {
			return false
		}
	}
	return true
}
