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
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/rs/zerolog"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/payledger/payledger/readmodels"
)

// Limits of an operation (DESIGN 8: depth and complexity limited). Every field costs 1 and a
// list field costs its children times its first argument, so leaderboard(first: 100) with all
// of User's 12 fields costs 1,201: one such list per operation, not two. The depth limit counts
// introspection too: __Type.ofType is the schema's only unbounded nesting (gqlparser's own rule
// bounds only __Type's list fields), and GraphiQL's introspection query stays within 15.
const (
	MaxComplexity = 2000
	MaxDepth      = 15
)

// NewHandler returns the GraphQL endpoint (GET and POST, introspection allowed, no mutation
// type) reading through store; now is the clock of the live window.
func NewHandler(store Store, now func() time.Time) http.Handler {
	if store == nil || now == nil {
		panic("gql: NewHandler needs a store and a clock")
	}
	cfg := Config{Resolvers: &resolver{store: store, now: now}}
	perItem := func(child int, first *int) int {
		n := DefaultFirst
		if first != nil {
			n = max(*first, 1)
		}
		return 1 + n*child
	}
	cfg.Complexity.Query.Leaderboard = perItem
	cfg.Complexity.Query.LiveUsers = perItem
	cfg.Complexity.Query.Follows = func(child int, _ string, _ FollowDirection, first *int, _ *string) int {
		return perItem(child, first)
	}
	srv := handler.New(NewExecutableSchema(cfg))
	srv.AddTransport(transport.GET{})
	srv.AddTransport(transport.POST{})
	srv.SetQueryCache(lru.New[*ast.QueryDocument](1000))
	srv.Use(extension.Introspection{})
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

func selectionDepth(set ast.SelectionSet) int {
	deepest := 0
	for _, sel := range set {
		var d int
		switch s := sel.(type) {
		case *ast.Field:
			d = 1 + selectionDepth(s.SelectionSet)
		case *ast.InlineFragment:
			d = selectionDepth(s.SelectionSet)
		case *ast.FragmentSpread:
			if s.Definition != nil {
				d = selectionDepth(s.Definition.SelectionSet)
			}
		}
		deepest = max(deepest, d)
	}
	return deepest
}
