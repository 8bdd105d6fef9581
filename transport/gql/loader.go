package gql

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/payledger/payledger/readmodels"
)

// countLoader batches a request's follow counts. The resolvers that return users announce
// their wallets (expect); the first count asked for loads the counts of every wallet announced
// so far in one query, and the others are answered from it. A leaderboard of 100 users with
// both counts is then two queries (the list, the counts), whatever its size, and with no
// waiting window: batching follows the parent resolvers, not a timer.
type countLoader struct {
	ctx     context.Context // the operation's: the counts are read for it
	store   Store
	mu      sync.Mutex
	pending map[string]struct{}
	loaded  map[string]readmodels.FollowCounts
}

func newCountLoader(ctx context.Context, store Store) *countLoader {
	return &countLoader{ctx: ctx, store: store, pending: map[string]struct{}{}, loaded: map[string]readmodels.FollowCounts{}}
}

// expect announces that wallet's counts may be asked for.
func (l *countLoader) expect(wallet string) {
	wallet = strings.ToLower(wallet)
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.loaded[wallet]; !ok {
		l.pending[wallet] = struct{}{}
	}
}

// load returns wallet's counts, loading every pending wallet's with it when not yet loaded ("":
// only the pending ones). Concurrent fields wait on the lock for the one query instead of each
// sending theirs.
func (l *countLoader) load(wallet string) (readmodels.FollowCounts, error) {
	wallet = strings.ToLower(wallet)
	l.mu.Lock()
	defer l.mu.Unlock()
	if c, ok := l.loaded[wallet]; ok {
		return c, nil
	}
	if wallet != "" {
		l.pending[wallet] = struct{}{}
	}
	if len(l.pending) == 0 {
		return readmodels.FollowCounts{}, nil
	}
	batch := make([]string, 0, len(l.pending))
	for w := range l.pending {
		batch = append(batch, w)
	}
	counts, err := l.store.FollowCounts(l.ctx, batch)
	if err != nil {
		return readmodels.FollowCounts{}, err
	}
	for _, w := range batch {
		l.loaded[w] = counts[w]
		delete(l.pending, w)
	}
	return l.loaded[wallet], nil
}

// loaders are one request's loaders, and the store its resolvers read through.
type loaders struct {
	counts *countLoader
	users  *userLoader
	store  Store
}

type loadersKey struct{}

// withLoaders gives the operation in ctx its own loaders: counts are never shared between
// requests, so they are never stale across them. Every read of the operation passes one
// readGate: gqlgen resolves a query's root fields concurrently, so aliased list fields each
// took a pool connection at once.
func withLoaders(ctx context.Context, store Store) context.Context {
	gated := &readGate{store: store}
	return context.WithValue(ctx, loadersKey{}, &loaders{counts: newCountLoader(ctx, gated), users: newUserLoader(ctx, gated), store: gated})
}

// readGate runs an operation's reads of the store one at a time: an operation holds one pool
// connection, whatever its aliases. It is the innermost lock (the loaders call it holding
// theirs; it calls nothing that locks), so it cannot deadlock with them.
type readGate struct {
	store Store
	mu    sync.Mutex
}

var _ Store = (*readGate)(nil)

func (g *readGate) Get(ctx context.Context, wallet string) (readmodels.User, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.store.Get(ctx, wallet)
}

func (g *readGate) Leaderboard(ctx context.Context, first int) ([]readmodels.User, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.store.Leaderboard(ctx, first)
}

func (g *readGate) Live(ctx context.Context, now time.Time, limit int) ([]readmodels.User, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.store.Live(ctx, now, limit)
}

func (g *readGate) FollowPage(ctx context.Context, wallet string, followers bool, first int, after string) ([]readmodels.Follow, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.store.FollowPage(ctx, wallet, followers, first, after)
}

func (g *readGate) FollowCounts(ctx context.Context, wallets []string) (map[string]readmodels.FollowCounts, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.store.FollowCounts(ctx, wallets)
}

func loadersFrom(ctx context.Context) *loaders {
	return ctx.Value(loadersKey{}).(*loaders)
}

// userLoader reads a request's user(wallet:) lookups one at a time, each wallet once: an
// operation of many aliased lookups (each costs UserCost) holds one pool connection, not one
// per alias. The store has no read of many users by wallet; a batch read would make this one
// query (docs: /work/notes/decision-surface.md).
type userLoader struct {
	ctx    context.Context
	store  Store
	mu     sync.Mutex
	loaded map[string]userResult
}

type userResult struct {
	user readmodels.User
	err  error
}

func newUserLoader(ctx context.Context, store Store) *userLoader {
	return &userLoader{ctx: ctx, store: store, loaded: map[string]userResult{}}
}

// load returns wallet's user (readmodels.ErrNotFound when it has none), reading it unless this
// request already did.
func (l *userLoader) load(wallet string) (readmodels.User, error) {
	wallet = strings.ToLower(wallet)
	l.mu.Lock()
	defer l.mu.Unlock()
	r, ok := l.loaded[wallet]
	if !ok {
		r.user, r.err = l.store.Get(l.ctx, wallet)
		l.loaded[wallet] = r
	}
	return r.user, r.err
}
