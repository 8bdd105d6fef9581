package readmodels

import (
	"context"
	"maps"
	"slices"
	"strings"
	"time"
)

// Read-your-writes on the window (DESIGN 4 and 9).
//
// The window is read again only some time after a change is announced (topUsersMaxStale), so a
// search right after a profile, presence or follow write would still see the user as it was. The
// instance that took the write therefore patches its window at once, before the write answers,
// with what the write's own statement returned (the user's row and follow counts): absolute
// values, not increments, so applying one twice, or to a read that already saw the write, gives
// the same window. Other instances learn of the write by the NOTIFY they already get.
//
// The window is shared by searches that read it without a lock, so a patch copies what it changes
// (the users slice, and the counts map only when counts or membership change).

// topPatch is one write of this instance: a user's row with its follow counts, or the follow
// counts of some wallets.
type topPatch struct {
	user   *User
	lower  lowered // the user's lowered texts, as its write returned them
	counts map[string]FollowCounts
}

// topPendingMax bounds the patches kept for a read in flight; past it the read is not kept and
// the next search reads again.
const topPendingMax = 10_000

// apply patches the window held now, and keeps the patch for the read in flight (which may have
// begun before the write committed) to be patched the same way when it lands.
func (t *topUsers) apply(p topPatch) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.window != nil {
		t.window = t.window.with(p)
	}
	if t.loading == nil {
		return
	}
	if len(t.pending) >= topPendingMax {
		t.epoch++ // the read in flight is not installed; the window (patched) is read again when stale
		t.pending = nil
		return
	}
	t.pending = append(t.pending, p)
}

// landed applies the patches kept while the read ran to its window; t.mu is held.
func (t *topUsers) landed(w *topWindow) *topWindow {
	for _, p := range t.pending {
		w = w.with(p)
	}
	t.pending = nil
	return w
}

// with returns the window with p applied; w is not changed.
func (w *topWindow) with(p topPatch) *topWindow {
	out := *w
	if p.user != nil {
		out.withUser(*p.user, p.lower, p.counts[p.user.Wallet])
		return &out
	}
	copied := false
	for wallet, c := range p.counts {
		if old, ok := out.counts[wallet]; !ok || old == c {
			continue // not in the window (its counts are read from the database), or unchanged
		}
		if !copied {
			out.counts, copied = maps.Clone(out.counts), true
		}
		out.counts[wallet] = c
	}
	return &out
}

// withUser puts u (its lowered texts l) where it sorts (XP descending, ties by wallet),
// or drops it when it sorts below a full window; a user pushed out of a full window goes, with
// its counts.
func (w *topWindow) withUser(u User, l lowered, c FollowCounts) {
	users := make([]topUser, 0, len(w.users)+1)
	for _, v := range w.users {
		if v.Wallet != u.Wallet {
			users = append(users, v)
		}
	}
	wasIn := len(users) < len(w.users)
	at, _ := slices.BinarySearchFunc(users, u, func(v topUser, u User) int {
		switch {
		case v.XP != u.XP:
			return cmpDesc(v.XP, u.XP)
		default:
			return strings.Compare(v.Wallet, u.Wallet)
		}
	})
	in := at < TopUsersSize
	if !in && !wasIn {
		return // below a full window, as before
	}
	if in {
		users = slices.Insert(users, at, topUser{User: u, lower: l.shared(u)})
	}
	var out *topUser
	if len(users) > TopUsersSize {
		out = &users[TopUsersSize]
		users = users[:TopUsersSize]
	}
	w.users = users
	if in && wasIn && out == nil && w.counts[u.Wallet] == c {
		return // same members, same counts
	}
	w.counts = maps.Clone(w.counts)
	if in {
		w.counts[u.Wallet] = c
	} else {
		delete(w.counts, u.Wallet)
	}
	if out != nil {
		delete(w.counts, out.Wallet)
	}
}

// cmpDesc orders a before b when a is larger.
func cmpDesc(a, b int64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

// wroteUser patches the window with a user this instance just wrote (its lowered texts l), and
// its counts.
func (s *Users) wroteUser(u User, c FollowCounts, l lowered) {
	if s.top != nil {
		s.top.apply(topPatch{user: &u, lower: l, counts: map[string]FollowCounts{u.Wallet: c}})
	}
}

// wroteFollow patches the window with the follow counts of both wallets of a follow this instance
// just made or ended, read after its commit. When they cannot be read the window is dropped (the
// next read reads it again) rather than the committed follow answered as failed.
func (s *Users) wroteFollow(ctx context.Context, follower, followee string) {
	if s.top == nil {
		return
	}
	counts, err := s.readCounts(ctx, []string{follower, followee})
	if err != nil {
		s.top.drop()
		return
	}
	s.top.apply(topPatch{counts: counts})
}

// drop forgets the window and the read in flight: the next search reads the window again.
func (t *topUsers) drop() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.epoch++
	t.window, t.staleAt, t.pending = nil, time.Time{}, nil
}
