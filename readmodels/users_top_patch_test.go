package readmodels

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/payledger/payledger/migrations/pgtest"
)

// TestWritesAreReadAtOnceFromTheWindow: a profile, presence or follow write of this instance is in
// its window when the write returns, although the window is not read again (maxStale an hour):
// every search and count right after a write equals the database's.
func TestWritesAreReadAtOnceFromTheWindow(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	now := time.Now().UTC().Truncate(time.Second)
	seedVaried(t, pool, 50, now)
	mem, sqlOnly := windowed(t, pool), NewUsers(pool)
	mem.top.maxStale = time.Hour
	ctx := context.Background()
	same := func(what string, q UserQuery) []User {
		t.Helper()
		q.Now = now
		got, gotTotal, err := mem.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		want, wantTotal, err := sqlOnly.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) || gotTotal != wantTotal {
			t.Fatalf("%s: the window answers %d %v, the database %d %v", what, gotTotal, got, wantTotal, want)
		}
		return got
	}
	newcomer := "0x" + fmt.Sprintf("%040d", 7)
	name := func(s string) *string { return &s }
	yes, no := true, false
	writes := []struct {
		what  string
		write func() error
		q     UserQuery
		found int
	}{
		{"a new user by its wallet", func() error {
			_, err := mem.UpdateProfile(ctx, newcomer, ProfilePatch{DisplayName: name("Newcomer"), SpacePublic: &yes}, now)
			return err
		}, UserQuery{Q: newcomer, Limit: 25, Scan: 400}, 1},
		{"a renamed user by its new name", func() error {
			_, err := mem.UpdateProfile(ctx, newcomer, ProfilePatch{DisplayName: name("Renamed newcomer")}, now)
			return err
		}, UserQuery{Q: "renamed", Limit: 25, Scan: 400}, 1},
		{"a user gone live", func() error {
			_, err := mem.Heartbeat(ctx, newcomer, Presence{Live: true}, now)
			return err
		}, UserQuery{Q: newcomer, Live: true, Limit: 25, Scan: 400}, 1},
		{"a user gone offline", func() error {
			_, err := mem.Heartbeat(ctx, newcomer, Presence{Live: false}, now)
			return err
		}, UserQuery{Q: newcomer, Live: true, Limit: 25, Scan: 400}, 0},
		{"a private space", func() error {
			_, err := mem.UpdateProfile(ctx, newcomer, ProfilePatch{SpacePublic: &no}, now)
			return err
		}, UserQuery{Limit: 100, Scan: 1000}, -1},
	}
	same("before any write", UserQuery{Limit: 100, Scan: 1000}) // the window is read
	for _, w := range writes {
		if err := w.write(); err != nil {
			t.Fatal(err)
		}
		if got := same(w.what, w.q); w.found >= 0 && len(got) != w.found {
			t.Fatalf("%s: %d found, want %d", w.what, len(got), w.found)
		}
	}

	// Three follows of the leader, one ended: its counts and its followers' at once.
	leader := same("the leader", UserQuery{Limit: 1, Scan: 1})[0].Wallet
	followers := same("followers", UserQuery{Limit: 4, Scan: 4})[1:]
	for _, f := range followers {
		if err := mem.Follow(ctx, f.Wallet, leader, now); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := mem.Unfollow(ctx, followers[0].Wallet, leader); err != nil {
		t.Fatal(err)
	}
	wallets := []string{leader, followers[0].Wallet, followers[1].Wallet}
	got, ok, err := mem.topCounts(ctx, wallets)
	if err != nil || !ok {
		t.Fatalf("counts not from the window: %v", err)
	}
	want, err := sqlOnly.readCounts(ctx, wallets)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) || got[leader].Followers != 2 || got[followers[1].Wallet].Following != 1 {
		t.Fatalf("counts after 3 follows and an unfollow: the window %v, the database %v", got, want)
	}
}

// TestAWriteDuringTheWindowsReadIsKept: a write that lands while the window is read (the read's
// snapshot taken before it) is in the window that read installs.
func TestAWriteDuringTheWindowsReadIsKept(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	now := time.Now().UTC()
	seedVaried(t, pool, 20, now)
	mem := windowed(t, pool)
	ctx := context.Background()
	read, snapshot, release := mem.top.read, make(chan struct{}), make(chan struct{})
	mem.top.read = func(ctx context.Context) (*topWindow, error) {
		w, err := read(ctx)
		close(snapshot)
		<-release
		return w, err
	}
	mem.top.drop() // the next search reads
	searched := make(chan error, 1)
	go func() { _, _, err := mem.Search(ctx, UserQuery{Limit: 25, Scan: 400}); searched <- err }()
	<-snapshot
	wallet := "0x" + fmt.Sprintf("%040d", 9)
	renamed := "Written during the read"
	if _, err := mem.UpdateProfile(ctx, wallet, ProfilePatch{DisplayName: &renamed}, now); err != nil {
		t.Fatal(err)
	}
	close(release)
	if err := <-searched; err != nil {
		t.Fatal(err)
	}
	mem.top.maxStale = time.Hour
	users, _, err := mem.Search(ctx, UserQuery{Q: "during the read", Limit: 25, Scan: 400})
	if err != nil || len(users) != 1 || users[0].Wallet != wallet {
		t.Fatalf("the write made during the read: %v %v", users, err)
	}
}

// TestAPatchKeepsTheWindowsOrderAndSize: a user is put where it sorts; one pushed out of a full
// window goes with its counts; one below a full window stays out.
func TestAPatchKeepsTheWindowsOrderAndSize(t *testing.T) {
	t.Parallel()
	full := &topWindow{counts: map[string]FollowCounts{}}
	for i := range TopUsersSize {
		u := User{Wallet: fmt.Sprintf("0x%040d", i), XP: int64(2 * (TopUsersSize - i))} // even XP, descending
		full.users = append(full.users, topUser{User: u})
		full.counts[u.Wallet] = FollowCounts{Followers: i}
	}
	last := full.users[TopUsersSize-1].Wallet
	patched := func(u User) *topWindow {
		return full.with(topPatch{user: &u, counts: map[string]FollowCounts{u.Wallet: {Following: 5}}})
	}
	in := patched(User{Wallet: "0xnew", XP: 1001})
	if len(in.users) != TopUsersSize || in.users[TopUsersSize/2].Wallet != "0xnew" || in.counts["0xnew"].Following != 5 {
		t.Fatalf("an inserted user: %d users, at the middle %s, counts %v", len(in.users), in.users[TopUsersSize/2].Wallet, in.counts["0xnew"])
	}
	if _, ok := in.counts[last]; ok || in.users[TopUsersSize-1].Wallet == last {
		t.Fatal("the user pushed out kept its place or its counts")
	}
	if out := patched(User{Wallet: "0xlow", XP: 1}); len(out.users) != TopUsersSize || out.counts["0xlow"] != (FollowCounts{}) {
		t.Fatal("a user below a full window went in")
	}
	moved := patched(User{Wallet: last, XP: 2*TopUsersSize + 1, DisplayName: "Up"})
	if moved.users[0].Wallet != last || moved.users[1].Wallet != full.users[0].Wallet || len(moved.users) != TopUsersSize ||
		moved.counts[last] != (FollowCounts{Following: 5}) {
		t.Fatalf("a moved user: first %s, counts %v", moved.users[0].Wallet, moved.counts[last])
	}
	if full.users[TopUsersSize-1].Wallet != last || len(full.counts) != TopUsersSize {
		t.Fatal("a patch changed the window it was applied to")
	}
}
