package gql

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/rs/zerolog"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/payledger/payledger/readmodels"
)

// Limits of an operation (DESIGN 8: depth and complexity limited). Every field costs 1 and a
// field that reads the store costs ReadCost besides, a list field its children times its first
// argument too, so leaderboard(first: 100) with all of User's 12 fields costs 1,220: one such
// list per operation, not two. The depth limit counts
// introspection too: __Type.ofType is the schema's only unbounded nesting (gqlparser's own rule
// bounds only __Type's list fields), and GraphiQL's introspection query stays within 15.
//
// The other limits bound the work done before the complexity is known: MaxTokens is checked while
// parsing (validation is quadratic in repeated fields: 24,000 `a:__typename` cost a minute
// there), MaxFields and MaxIntrospection after validation (gqlgen's complexity never costs the
// introspection fields, so aliased `__schema` blocks would each answer the whole schema).
// GraphiQL's introspection query is about 150 tokens, 130 fields (fragments expanded) and one
// `__schema`; a leaderboard with all of User's fields is 45 tokens.
const (
	MaxComplexity    = 2000
	MaxDepth         = 15
	MaxTokens        = 2000
	MaxFields        = 500
	MaxIntrospection = 1
	// ReadCost is what a field that reads the store (user, leaderboard, liveUsers, follows)
	// costs besides its selection, so an operation holds at most about 100 reads; they run one
	// at a time (readGate), never one connection per alias. A list field cost only its items
	// before, so 180 aliased liveUsers(first: 0) fit and gqlgen ran them at once, on every
	// connection of the pool.
	ReadCost = 20
	// UserCost is what one user(wallet:) lookup costs besides its selection.
	UserCost = ReadCost
)

// NewHandler returns the GraphQL endpoint (GET and POST, introspection allowed, no mutation
// type) reading through store; now is the clock of the live window.
func NewHandler(store Store, now func() time.Time) http.Handler {
	if store == nil || now == nil {
		panic("gql: NewHandler needs a store and a clock")
	}
	cfg := Config{Resolvers: &resolver{now: now}}
	perItem := func(child int, first *int) int {
		n := DefaultFirst
		if first != nil {
			n = max(*first, 1)
		}
		return ReadCost + n*child
	}
	cfg.Complexity.Query.Leaderboard = perItem
	cfg.Complexity.Query.LiveUsers = perItem
	cfg.Complexity.Query.User = func(child int, _ string) int { return UserCost + child }
	cfg.Complexity.Query.Follows = func(child int, _ string, _ FollowDirection, first *int, _ *string) int {
		return perItem(child, first)
	}
	srv := handler.New(NewExecutableSchema(cfg))
	srv.AddTransport(transport.GET{})
	srv.AddTransport(transport.POST{})
	srv.SetQueryCache(newQueryCache(queryCacheBudget, queryCacheEntries)) // cache.go: bounded by weight, not count
	srv.SetParserTokenLimit(MaxTokens)
	srv.Use(extension.Introspection{})
	srv.Use(FieldLimit{Max: MaxFields, MaxIntrospection: MaxIntrospection})
	srv.Use(extension.FixedComplexityLimit(MaxComplexity))
	srv.Use(DepthLimit{Max: MaxDepth})
	srv.AroundOperations(func(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
		return next(withLoaders(ctx, store))
	})
	srv.SetErrorPresenter(presentError)
	srv.SetRecoverFunc(func(ctx context.Context, p any) error {
		zerolog.Ctx(ctx).Error().Str("panic", fmt.Sprint(p)).Msg("graphql resolver panicked")
		return errors.New("internal error")
	})
	return srv
}

// presentError keeps the client's errors (bad arguments, limits) and hides internal ones behind a
// code, logging them; the datastore down is said as such.
func presentError(ctx context.Context, err error) *gqlerror.Error {
	var gqlErr *gqlerror.Error
	if errors.As(err, &gqlErr) && gqlErr.Err == nil {
		if gqlErr.Path == nil {
			gqlErr.Path = graphql.GetPath(ctx)
		}
		return gqlErr
	}
	if readmodels.Unavailable(err) {
		zerolog.Ctx(ctx).Warn().Err(err).Msg("degraded mode: graphql")
		return &gqlerror.Error{Message: "datastore unavailable", Path: graphql.GetPath(ctx),
			Extensions: map[string]any{"code": "datastore_unavailable"}}
	}
	zerolog.Ctx(ctx).Error().Err(err).Msg("graphql resolver failed")
	return &gqlerror.Error{Message: "internal error", Path: graphql.GetPath(ctx), Extensions: map[string]any{"code": "failed"}}
}

// DepthLimit refuses an operation whose selections nest deeper than Max (fragments count as
// the fields they hold).
type DepthLimit struct{ Max int }

var (
	_ graphql.HandlerExtension        = DepthLimit{}
	_ graphql.OperationContextMutator = DepthLimit{}
)

// ExtensionName names the extension in gqlgen's stats.
func (DepthLimit) ExtensionName() string { return "DepthLimit" }

// Validate accepts any schema.
func (DepthLimit) Validate(graphql.ExecutableSchema) error { return nil }

// MutateOperationContext measures the operation after validation (fragments are resolved, and
// cycles among them already refused).
func (d DepthLimit) MutateOperationContext(_ context.Context, op *graphql.OperationContext) *gqlerror.Error {
	if op.Operation == nil {
		return nil
	}
	if depth := selectionDepth(op.Operation.SelectionSet); depth > d.Max {
		return &gqlerror.Error{Message: fmt.Sprintf("operation has depth %d, which exceeds the limit of %d", depth, d.Max),
			Extensions: map[string]any{"code": "DEPTH_LIMIT_EXCEEDED"}}
	}
	return nil
}

// selectionDepth measures set, each named fragment once (fragments spreading one another twice
// over would otherwise be measured 2^n times).
func selectionDepth(set ast.SelectionSet) int {
	return depthOf(set, map[string]int{})
}

func depthOf(set ast.SelectionSet, fragments map[string]int) int {
	deepest := 0
	for _, sel := range set {
		var d int
		switch s := sel.(type) {
		case *ast.Field:
			d = 1 + depthOf(s.SelectionSet, fragments)
		case *ast.InlineFragment:
			d = depthOf(s.SelectionSet, fragments)
		case *ast.FragmentSpread:
			if s.Definition == nil {
				break
			}
			known, ok := fragments[s.Name]
			if !ok {
				known = depthOf(s.Definition.SelectionSet, fragments)
				fragments[s.Name] = known
			}
			d = known
		}
		deepest = max(deepest, d)
	}
	return deepest
}

// FieldLimit refuses an operation selecting more than Max fields (aliases and fragments
// counted as the fields they select, as often as they are spread) or more than
// MaxIntrospection `__schema`/`__type` fields.
type FieldLimit struct{ Max, MaxIntrospection int }

var (
	_ graphql.HandlerExtension        = FieldLimit{}
	_ graphql.OperationContextMutator = FieldLimit{}
)

// ExtensionName names the extension in gqlgen's stats.
func (FieldLimit) ExtensionName() string { return "FieldLimit" }

// Validate accepts any schema.
func (FieldLimit) Validate(graphql.ExecutableSchema) error { return nil }

// MutateOperationContext counts the operation's fields after validation, stopping at the first
// one past a limit: the count costs at most Max steps however the fragments multiply.
func (l FieldLimit) MutateOperationContext(_ context.Context, op *graphql.OperationContext) *gqlerror.Error {
	if op.Operation == nil {
		return nil
	}
	c := fieldCount{max: l.Max, maxIntro: l.MaxIntrospection}
	c.walk(op.Operation.SelectionSet)
	switch {
	case c.intro > l.MaxIntrospection:
		return &gqlerror.Error{Message: fmt.Sprintf("operation selects __schema or __type more than %d time(s)", l.MaxIntrospection),
			Extensions: map[string]any{"code": "INTROSPECTION_LIMIT_EXCEEDED"}}
	case c.fields > l.Max:
		return &gqlerror.Error{Message: fmt.Sprintf("operation selects more than %d fields, which exceeds the limit of %d", l.Max, l.Max),
			Extensions: map[string]any{"code": "FIELD_LIMIT_EXCEEDED"}}
	}
	return nil
}

type fieldCount struct {
	max, maxIntro int
	fields, intro int
}

// over stops the walk: a fragment spread holds at least one selection and fragments do not
// cycle (validation), so the walk visits at most about Max times the fragments' count.
func (c *fieldCount) over() bool { return c.fields > c.max || c.intro > c.maxIntro }

func (c *fieldCount) walk(set ast.SelectionSet) {
	for _, sel := range set {
		if c.over() {
			return
		}
		switch s := sel.(type) {
		case *ast.Field:
			c.fields++
			if s.Name == "__schema" || s.Name == "__type" {
				c.intro++
			}
			c.walk(s.SelectionSet)
		case *ast.InlineFragment:
			c.walk(s.SelectionSet)
		case *ast.FragmentSpread:
			if s.Definition != nil {
				c.walk(s.Definition.SelectionSet)
			}
		}
	}
}
