package portal

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/transport"
	"github.com/payledger/payledger/transport/page"
)

// The customer's payment page and the public reads it makes (DESIGN.md section 9) mount on the
// HTTP foundation (transport.Server): public routes under its per-address limit, middleware and
// error envelope. They read through the queries declared here, which cmd/payledger/app/web
// fills from the service (the one place); the page's writes (onramp, wallet payment, quote,
// telemetry) are the developer API's routes, which call the commands.

// Router is what the payment page needs of the foundation (transport/foundation.go).
type Router interface {
	Handle(method, path string, p transport.Policy, h echo.HandlerFunc)
	Config() transport.Config
	WatchReceipt(id string) (<-chan struct{}, func())
	Listening() bool
	Stopping() <-chan struct{}
	Now() time.Time // the service's clock
}

// Receipts reads the receipts read model (merchant "": any merchant's receipt).
type Receipts interface {
	Get(ctx context.Context, merchant, id string) (readmodels.ReceiptRow, error)
}

// ReceiptStates folds a receipt's state from its event stream: what the read model may not show
// yet (a quote the customer has just been answered).
type ReceiptStates interface {
	ReceiptState(ctx context.Context, id string) (receipt.State, error)
}

// Shops reads a merchant's shop branding.
type Shops interface {
	Get(ctx context.Context, wallet string) (readmodels.ShopConfig, error)
}

// Prices reads the token prices.
type Prices interface {
	All(ctx context.Context) (map[string]readmodels.Price, error)
}

// Deps are the queries the payment page reads through; every one is required.
type Deps struct {
	Receipts Receipts
	States   ReceiptStates
	Shops    Shops
	Prices   Prices
}

// handlers are the mounted payment page: its queries, the foundation it runs on, its assets.
type handlers struct {
	Deps
	r       Router
	cfg     transport.Config
	assets  *page.Assets
	streams *transport.Slots // the open event streams, per client address and on the instance
}

// Mount registers the payment page's routes on r. A missing query fails here, at start.
func Mount(r Router, d Deps) error {
	if d.Receipts == nil || d.States == nil || d.Shops == nil || d.Prices == nil {
		return errors.New("portal: missing dependency (Receipts, States, Shops and Prices are required)")
	}
	assets, err := page.Load()
	if err != nil {
		return fmt.Errorf("transport: payment page assets: %w", err)
	}
	s := &handlers{Deps: d, r: r, cfg: r.Config(), assets: assets, streams: &transport.Slots{Max: streamsPerAddress, Total: streamsPerInstance}}
	s.routes()
	return nil
}

func (s *handlers) routes() {
	public := transport.Policy{Access: transport.Public}
	s.r.Handle(http.MethodGet, page.StaticPrefix+"*", transport.Policy{Access: transport.Open}, echo.WrapHandler(http.HandlerFunc(s.assets.ServeAsset)))
	s.r.Handle(http.MethodGet, "/portal/:id", public, s.paymentPage)
	s.r.Handle(http.MethodGet, "/pay/:id", public, s.paymentPage)
	s.r.Handle(http.MethodGet, "/api/portal/:id", public, s.portalReceipt)
	s.r.Handle(http.MethodGet, "/api/portal/:id/qr", public, s.portalQR)
	s.r.Handle(http.MethodGet, "/api/portal/:id/request", public, s.portalRequest)
	s.r.Handle(http.MethodGet, "/api/portal/:id/events", public, s.portalEvents)
	s.r.Handle(http.MethodGet, "/api/portal/:id/status", public, s.portalStatus)
}

// anyReceipt reads receipt id of any merchant (the customer's pages and polling); an unknown id
// is "Receipt not found". A receipt the read model does not show (the projector has not applied
// it yet, or a crash of PostgreSQL took its row back while its event is stored) is folded from
// its events: the customer sent to its page right after the order must not read that it does
// not exist.
func (s *handlers) anyReceipt(c echo.Context, id string) (readmodels.ReceiptRow, error) {
	row, err := s.Receipts.Get(c.Request().Context(), "", id)
	if !errors.Is(err, readmodels.ErrNotFound) {
		return row, err
	}
	if row.State, err = s.States.ReceiptState(c.Request().Context(), id); err != nil {
		return row, err
	}
	if !row.State.Exists {
		return row, commands.ErrReceiptNotFound
	}
	return row, nil
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
