package dashboard

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/transport"
)

// The merchant dashboard (DESIGN.md section 9): server-rendered pages for the signed-in wallet's
// merchant. Its pages are public routes that check the session themselves, so that a missing
// session redirects to the sign-in page instead of answering 401; every change goes through the
// admin API (session + CSRF), from dash.js.

// ReceiptSearcher finds a merchant's receipts by receipt id or transactionId, of one status
// when status is not "".
type ReceiptSearcher interface {
	Search(ctx context.Context, merchant, q, status string, limit int) ([]readmodels.ReceiptRow, error)
}

const (
	dashPageSize   = 25
	dashSearchMax  = 50  // receipts a search shows
	dashQueryMax   = 200 // characters of a search
	dashEventBytes = 16 << 10
)

func (s *dash) dashboardRoutes() {
	s.r.Handle(http.MethodGet, StaticPrefix+"*", transport.Policy{Access: transport.Open}, echo.WrapHandler(http.HandlerFunc(s.ui.ServeAsset)))
	s.r.Handle(http.MethodGet, "/dashboard/login", transport.Policy{Access: transport.Public}, s.dashLogin)
	s.r.Handle(http.MethodGet, "/dashboard/login/link", transport.Policy{Access: transport.Public}, s.dashLinkPage)
	s.r.Handle(http.MethodPost, "/dashboard/login/link", transport.Policy{Access: transport.Public}, s.dashLinkSignIn)
	s.r.Handle(http.MethodPost, "/api/auth/dev-link", transport.Policy{Access: transport.Admin}, s.issueDevLink)
	s.r.Handle(http.MethodGet, "/dashboard", transport.Policy{Access: transport.Public}, s.dashPage(s.dashReceipts))
	s.r.Handle(http.MethodGet, "/dashboard/receipts/:id", transport.Policy{Access: transport.Public}, s.dashPage(s.dashReceipt))
	s.r.Handle(http.MethodGet, "/dashboard/settings", transport.Policy{Access: transport.Public}, s.dashPage(s.dashSettings))
	s.r.Handle(http.MethodGet, "/dashboard/events", transport.Policy{Access: transport.Admin}, s.dashEvents)
}

// dashTime is a Unix-ms time as the dashboard shows it, and as ISO 8601 for <time>.
func dashTime(ms int64) (string, string) {
	t := time.UnixMilli(ms).UTC()
	return t.Format("2006-01-02 15:04:05 UTC"), t.Format(time.RFC3339)
}

// dashMoney is an amount with its currency: "$12.31 USD".
func dashMoney(c money.Cents, currency string) string {
	sym := "$"
	if currency == "EUR" {
		sym = "€"
	}
	return sym + c.String() + " " + currency
}

type dashRow struct {
	ID, URL, TransactionID, Created, CreatedISO, Total, Status string
}

type dashList struct {
	Receipts               []dashRow
	Statuses               []string
	Status, Query          string
	First, Next, ExportURL string
}

// cutChars is s's first n characters: a cut inside a character would leave invalid UTF-8, which
// PostgreSQL refuses (the server's middleware already refused invalid query values).
func cutChars(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// dashReceipts is /dashboard: the merchant's receipts newest first, a status filter, a search by
// receipt id or transactionId, and keyset pages.
func (s *dash) dashReceipts(c echo.Context, sess transport.Session, f Frame) error {
	ctx := c.Request().Context()
	v := dashList{Statuses: receipt.StatusNames(), Status: c.QueryParam("status"), Query: strings.TrimSpace(c.QueryParam("q"))}
	if !slices.Contains(v.Statuses, v.Status) {
		v.Status = "" // an unknown filter shows every receipt rather than an error page
	}
	v.Query = cutChars(v.Query, dashQueryMax)
	var rows []readmodels.ReceiptRow
	var err error
	cursor := c.QueryParam("cursor")
	switch {
	case v.Query != "":
		rows, err = s.search(ctx, sess.Wallet, v.Query, v.Status)
	default:
		var next string
		rows, next, err = s.Receipts.List(ctx, sess.Wallet, v.Status, dashPageSize, cursor)
		if errors.Is(err, readmodels.ErrBadCursor) {
			cursor = ""
			rows, next, err = s.Receipts.List(ctx, sess.Wallet, v.Status, dashPageSize, "")
		}
		if next != "" {
			v.Next = dashListURL(v.Status, next)
		}
		if cursor != "" {
			v.First = dashListURL(v.Status, "")
		}
	}
	if err != nil {
		return err
	}
	for _, r := range rows {
		g := r.State.Receipt
		created, iso := dashTime(g.CreatedAt)
		v.Receipts = append(v.Receipts, dashRow{ID: g.ReceiptID, URL: "/dashboard/receipts/" + url.PathEscape(g.ReceiptID),
			TransactionID: g.TransactionID, Created: created, CreatedISO: iso, Total: dashMoney(g.Total, g.Currency), Status: string(r.State.Status)})
	}
	// The list shows every receipt, so its download does too: from=0, not the API's default
	// window of the last 30 days, which left older receipts out of the file.
	v.ExportURL = "/api/exports/receipts.csv?from=0"
	if v.Status != "" {
		v.ExportURL += "&status=" + url.QueryEscape(v.Status)
	}
	f.Title, f.Tab = "Receipts", "receipts"
	return s.ui.Render(c.Response(), http.StatusOK, "receipts", f, v)
}

// search finds the merchant's receipts whose receipt id or transactionId is q, and the receipt
// of the id the merchant chose when q is one: a receipt created with {"id": "inv-1001"} is stored
// and shown in the merchant's namespace (commands.MerchantReceiptIDs: m + 32 hex + _ + inv-1001,
// or m + 12 hex + _ + inv-1001 when made before stop 70), so the merchant's own order number
// found "No receipts match". That receipt comes first (an id names one receipt), then the others,
// newest first, at most dashSearchMax in all.
func (s *dash) search(ctx context.Context, wallet, q, status string) ([]readmodels.ReceiptRow, error) {
	rows, err := s.Search.Search(ctx, wallet, q, status, dashSearchMax)
	if err != nil || commands.InMerchantNamespace(wallet, q) {
		return rows, err
	}
	var chosen []readmodels.ReceiptRow
	for _, stored := range commands.MerchantReceiptIDs(wallet, q) { // the merchant's own receipts only
		if chosen, err = s.Search.Search(ctx, wallet, stored, status, 1); err != nil || len(chosen) > 0 {
			break
		}
	}
	if err != nil || len(chosen) == 0 {
		return rows, err
	}
	id := chosen[0].State.Receipt.ReceiptID
	out := chosen[:1:1]
	for _, r := range rows {
		if r.State.Receipt.ReceiptID != id && len(out) < dashSearchMax {
			out = append(out, r)
		}
	}
	return out, nil
}

func dashListURL(status, cursor string) string {
	q := url.Values{}
	if status != "" {
		q.Set("status", status)
	}
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	if len(q) == 0 {
		return "/dashboard"
	}
	return "/dashboard?" + q.Encode()
}
