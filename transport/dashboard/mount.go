package dashboard

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/split"
	"github.com/payledger/payledger/domain/subscription"
	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/transport"
)

// The merchant dashboard's handlers (DESIGN.md section 9) mount on the HTTP foundation
// (transport.Server): its routes run under the foundation's access policies, middleware, sessions
// and error envelope. They read through the queries declared here, which cmd/payledger/app/web
// fills from the service (the one place), and change nothing themselves: every change goes
// through the admin API (session + CSRF), from dash.js.

// Router is what the dashboard needs of the foundation (transport/foundation.go).
type Router interface {
	Handle(method, path string, p transport.Policy, h echo.HandlerFunc)
	Config() transport.Config
	Now() time.Time
	PageSession(c echo.Context) (transport.Session, string, error)
	StartSession(c echo.Context, wallet string, now time.Time) error
	WhileAuthorized(c echo.Context) (context.Context, context.CancelFunc)
	TakeStreamSlot(c echo.Context, merchant string) (func(), error)
	WatchReceipt(id string) (<-chan struct{}, func())
	Stopping() <-chan struct{}
}

// Receipts reads the receipts read model: one of a merchant's, and its list by status, keyset
// paged.
type Receipts interface {
	Get(ctx context.Context, merchant, id string) (readmodels.ReceiptRow, error)
	List(ctx context.Context, merchant, status string, limit int, cursor string) ([]readmodels.ReceiptRow, string, error)
}

// Histories reads a receipt's audited history with the hash chain's check.
type Histories interface {
	ReceiptHistory(ctx context.Context, id, merchant string) (commands.History, error)
}

// Deliveries reads a receipt's webhook delivery attempts.
type Deliveries interface {
	Deliveries(ctx context.Context, merchant, receiptID string, limit int, cursor string) ([]readmodels.Attempt, string, error)
}

// Splits reads a merchant's split as the event log holds it now (commands.Aggregates).
type Splits interface {
	Split(ctx context.Context, wallet string) (split.State, error)
}

// Keys lists a merchant's API keys.
type Keys interface {
	List(ctx context.Context, wallet string) ([]readmodels.APIKey, error)
}

// Endpoints lists a merchant's webhook endpoints and an endpoint's latest attempts.
type Endpoints interface {
	List(ctx context.Context, merchant string) ([]readmodels.Endpoint, error)
	Attempts(ctx context.Context, merchant string, endpointID uuid.UUID, limit int) ([]readmodels.EndpointAttempt, error)
}

// Figures sums a merchant's receipts by currency.
type Figures interface {
	Summaries(ctx context.Context, wallet string, from, to time.Time) ([]readmodels.MoneySummary, error)
}

// Shops reads a merchant's shop branding.
type Shops interface {
	Get(ctx context.Context, wallet string) (readmodels.ShopConfig, error)
}

// Plans lists a merchant's active plans.
type Plans interface {
	ListActive(ctx context.Context, wallet string) ([]readmodels.Plan, error)
}

// Subscriptions lists a merchant's newest subscriptions.
type Subscriptions interface {
	NewestByMerchant(ctx context.Context, wallet string, n int) ([]subscription.State, error)
}

// Deps are the queries the dashboard reads through; every one is required.
type Deps struct {
	Receipts      Receipts
	Search        ReceiptSearcher
	Histories     Histories
	Deliveries    Deliveries
	Splits        Splits
	Keys          Keys
	Endpoints     Endpoints
	Figures       Figures
	Shops         Shops
	Plans         Plans
	Subscriptions Subscriptions
}

// dash is the mounted dashboard: its queries, the foundation it runs on, its templates and the
// outstanding sign-in links.
type dash struct {
	Deps
	r        Router
	cfg      transport.Config
	now      func() time.Time
	ui       *UI
	devLinks *devLinks
}

// Mount registers the dashboard's routes on r. A missing query fails here, at start, naming it.
func Mount(r Router, d Deps) error {
	for name, missing := range map[string]bool{"Receipts": d.Receipts == nil, "Search": d.Search == nil, "Histories": d.Histories == nil,
		"Deliveries": d.Deliveries == nil, "Splits": d.Splits == nil, "Keys": d.Keys == nil, "Endpoints": d.Endpoints == nil,
		"Figures": d.Figures == nil, "Shops": d.Shops == nil, "Plans": d.Plans == nil, "Subscriptions": d.Subscriptions == nil} {
		if missing {
			return fmt.Errorf("dashboard: missing dependency %s", name)
		}
	}
	ui, err := Load()
	if err != nil {
		return fmt.Errorf("transport: dashboard: %w", err)
	}
	s := &dash{Deps: d, r: r, cfg: r.Config(), now: r.Now, ui: ui, devLinks: newDevLinks()}
	s.dashboardRoutes()
	return nil
}

func hashHex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// first is the first of vals that is not blank, trimmed.
func first(vals ...string) string {
	for _, v := range vals {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}

// clip shortens a refused input for its error message.
func clip(s string) string {
	if len(s) > 24 {
		return s[:24] + "…"
	}
	return s
}
