package gql

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/payledger/payledger/domain/address"
	"github.com/payledger/payledger/readmodels"
)

// Store is what the GraphQL API reads; readmodels.Users implements it.
type Store interface {
	// Get returns wallet's user, or readmodels.ErrNotFound.
	Get(ctx context.Context, wallet string) (readmodels.User, error)
	Leaderboard(ctx context.Context, first int) ([]readmodels.User, error)
	Live(ctx context.Context, now time.Time, limit int) ([]readmodels.User, error)
	FollowPage(ctx context.Context, wallet string, followers bool, first int, after string) ([]readmodels.Follow, error)
	FollowCounts(ctx context.Context, wallets []string) (map[string]readmodels.FollowCounts, error)
}

var _ Store = (*readmodels.Users)(nil)

// MaxFirst is the largest page any list field returns (DESIGN 8); DefaultFirst is the schema's
// default.
const (
	MaxFirst     = 100
	DefaultFirst = 25
)

// resolver reads through the operation's loaders (loadersFrom), never the store itself: every
// read of an operation passes its readGate.
type resolver struct {
	now func() time.Time
}

func (r *resolver) Query() QueryResolver                       { return queryResolver{r} }
func (r *resolver) FollowConnection() FollowConnectionResolver { return connectionResolver{r} }

type queryResolver struct{ *resolver }

func (q queryResolver) User(ctx context.Context, wallet string) (*User, error) {
	if !address.Valid(wallet) {
		return nil, nil // no user has it (text such as a NUL would fail in the database)
	}
	u, err := loadersFrom(ctx).users.load(wallet)
	if errors.Is(err, readmodels.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := newUser(u, q.now(), loadersFrom(ctx).counts)
	return &out, nil
}

func (q queryResolver) Leaderboard(ctx context.Context, first *int) ([]User, error) {
	n, err := firstArg(first)
	if err != nil {
		return nil, err
	}
	users, err := loadersFrom(ctx).store.Leaderboard(ctx, n)
	if err != nil {
		return nil, err
	}
	now := q.now()
	counts := loadersFrom(ctx).counts
	out := make([]User, len(users))
	for i, u := range users {
		out[i] = newUser(u, now, counts)
	}
	return out, preloadCounts(ctx, counts)
}

func (q queryResolver) LiveUsers(ctx context.Context, first *int) ([]LiveUser, error) {
	n, err := firstArg(first)
	if err != nil {
		return nil, err
	}
	now := q.now()
	users, err := loadersFrom(ctx).store.Live(ctx, now, n)
	if err != nil {
		return nil, err
	}
	counts := loadersFrom(ctx).counts
	out := make([]LiveUser, len(users))
	for i, u := range users {
		out[i] = newLiveUser(u, now, counts)
	}
	return out, nil
}

// Follows reads first+1 follows to know whether another page follows; the cursor is the other
// wallet (follows are in wallet order), opaque to clients.
func (q queryResolver) Follows(ctx context.Context, wallet string, direction FollowDirection, first *int, after *string) (*FollowConnection, error) {
	n, err := firstArg(first)
	if err != nil {
		return nil, err
	}
	if err := walletArg(wallet); err != nil {
		return nil, err
	}
	from := ""
	if after != nil && *after != "" {
		if from, err = decodeCursor(*after); err != nil {
			return nil, err
		}
	}
	followers := direction == FollowDirectionFollowers
	page, err := loadersFrom(ctx).store.FollowPage(ctx, wallet, followers, n+1, from)
	if err != nil {
		return nil, err
	}
	c := &FollowConnection{Edges: []FollowEdge{}, wallet: strings.ToLower(wallet), followers: followers}
	c.PageInfo.HasNextPage = len(page) > n
	page = page[:min(len(page), n)]
	counts := loadersFrom(ctx).counts
	counts.expect(c.wallet) // totalCount
	now := q.now()
	for _, f := range page {
		cursor := encodeCursor(f.User.Wallet)
		c.Edges = append(c.Edges, FollowEdge{Cursor: cursor, Node: newUser(f.User, now, counts), FollowedAt: f.At.UnixMilli()})
		c.PageInfo.EndCursor = &cursor
	}
	return c, nil
}

// preloadCounts loads the counts of every announced wallet now when the field's users are asked
// for a count: the list's elements, which gqlgen marshals concurrently, then only read them.
func preloadCounts(ctx context.Context, counts *countLoader) error {
	for _, f := range graphql.CollectFieldsCtx(ctx, nil) {
		if f.Name == "followerCount" || f.Name == "followingCount" {
			_, err := counts.load("")
			return err
		}
	}
	return nil
}

type connectionResolver struct{ *resolver }

func (r connectionResolver) TotalCount(ctx context.Context, c *FollowConnection) (int, error) {
	n, err := loadersFrom(ctx).counts.load(c.wallet)
	if c.followers {
		return n.Followers, err
	}
	return n.Following, err
}

// inputError is a GraphQL error of the client's making, with the REST API's code.
func inputError(format string, args ...any) *gqlerror.Error {
	return &gqlerror.Error{Message: fmt.Sprintf(format, args...), Extensions: map[string]any{"code": "invalid_input"}}
}

func firstArg(first *int) (int, error) {
	if first == nil {
		return DefaultFirst, nil
	}
	if *first < 0 || *first > MaxFirst {
		return 0, inputError("first must be between 0 and %d", MaxFirst)
	}
	return *first, nil
}

const cursorPrefix = "follow:"

func encodeCursor(wallet string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + wallet))
}

func decodeCursor(s string) (string, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	wallet, ok := strings.CutPrefix(string(b), cursorPrefix)
	if err != nil || !ok || !address.Valid(wallet) { // a forged cursor's bytes never reach SQL
		return "", inputError("after is not a cursor of this connection")
	}
	return wallet, nil
}

// walletArg refuses a wallet argument that is not an address: users are keyed by wallet address,
// and text such as a NUL byte would only reach the database to fail there (an internal error).
func walletArg(wallet string) error {
	if !address.Valid(wallet) {
		return inputError("wallet must be 0x followed by 40 hex characters")
	}
	return nil
}
