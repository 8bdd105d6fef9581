package dashboard

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/transport"
	"github.com/payledger/payledger/transport/page"
)

type dashLine struct {
	Label, Unit, Amount, Kind string
	Qty                       int64
}

type dashEvent struct {
	Type, Recorded, RecordedISO, Hash, Data string
}

type dashDelivery struct {
	ID, At, AtISO, HTTPStatus, Error, Kind, StatusSent string
	OK                                                 bool
}

// dashReceiptView is /dashboard/receipts/{id}. DepositAddress, AmountRequired and AmountReceived
// are set for a receipt paid by deposit address only (dashDeposit).
type dashReceiptView struct {
	ID, Brand, TransactionID, Created, CreatedISO, Status, Currency string
	Lines                                                           []dashLine
	Subtotal, Tax, Fee, Total                                       string
	Payment                                                         *receipt.Payment
	DepositAddress, AmountRequired, AmountReceived                  string
	SplitTx                                                         string
	RefundTxs                                                       []string
	Failure                                                         string
	Refunded, Requested, Unrefunded                                 string
	RefundedExcess                                                  string // refundedExcessUsd, "" when 0 (the excess refunded apart from the order)
	RefundedEarly, RefundedProcessor                                string // refundedBeforePaymentUsd, processorRefundedUsd; "" when 0 (apart from the order)
	CanRefund                                                       bool
	Events                                                          []dashEvent
	ChainValid                                                      bool
	BrokenAt                                                        uint64
	Deliveries                                                      []dashDelivery
	WebhookURL                                                      bool
	Live                                                            string // the receipt's event stream while its status may still change
	LiveEnds                                                        string // the statuses at which that stream ends (liveEnds)
	Transfers                                                       []dashTransfer
	UnknownTokens                                                   []dashUnknownToken // unknown_tokens_dashboard.go
	// Refunds with a hash, the wallet refund and its script (refunds_dashboard.go).
	Refunds       []dashRefund
	RefundPending bool // a claim waits for the chain: the page reloads until it is decided
	// RefundHashRequired: only a refund with its hash is taken (the form is the wallet refund's).
	RefundHashRequired bool
	WalletRefund       *dashWalletRefund
	RefundJS           string
	// ExcessClaim is the unrefunded excess while a refund of it with a hash would be taken
	// (canClaimExcess), "" otherwise: the form "Sent the excess already?" records one (excess:
	// true). ExcessOnly: the order takes no refund, only its excess (no order form).
	ExcessClaim string
	ExcessOnly  bool

	// ProcessorClaim is what the merchant owes back of processor payments the receipt does not
	// count (processorToRefundUsd) while a refund of them would be taken (canClaimProcessor), ""
	// otherwise: the form "Refunded a processor payment?" records one (processorPayment: true).
	ProcessorClaim string
}

// dashReceipt is one receipt of the merchant: lines and totals, payment, its audited history
// with the hash chain's check (what GET /api/receipts/{id}/events and `payledger verify` use),
// webhook deliveries and the refund form. Another merchant's receipt is not found (404).
func (s *dash) dashReceipt(c echo.Context, sess transport.Session, f Frame) error {
	ctx := c.Request().Context()
	id := c.Param("id")
	row, err := s.Receipts.Get(ctx, sess.Wallet, id)
	if errors.Is(err, readmodels.ErrNotFound) && !commands.InMerchantNamespace(sess.Wallet, id) {
		// The id the merchant chose (inv-1001): its receipt is stored, linked and streamed at
		// the namespaced id (commands.MerchantReceiptIDs, current or pre-stop-70 form), where
		// its page is. Get reads the merchant's own receipts only.
		for _, own := range commands.MerchantReceiptIDs(sess.Wallet, id) {
			if _, err := s.Receipts.Get(ctx, sess.Wallet, own); err == nil {
				return c.Redirect(http.StatusSeeOther, "/dashboard/receipts/"+url.PathEscape(own))
			}
		}
	}
	if errors.Is(err, readmodels.ErrNotFound) {
		return s.ui.Render(c.Response(), http.StatusNotFound, "notfound", Frame{Title: "Receipt not found", Wallet: f.Wallet, CSRF: f.CSRF},
			page.ShownID(id)) // only a receipt-shaped id: any other text of a link read as the dashboard's own words
	}
	if err != nil {
		return err
	}
	hist, err := s.Histories.ReceiptHistory(ctx, id, sess.Wallet)
	if err != nil {
		return err
	}
	deliveries, _, err := s.Deliveries.Deliveries(ctx, sess.Wallet, id, 50, "")
	if err != nil {
		return err
	}
	v := dashReceiptOf(row.State)
	dashDeposit(&v, row.State)
	v.Transfers = dashTransfers(row.State, s.explorer())
	v.UnknownTokens = dashUnknownTokens(row.State, s.explorer(), s.cfg.PaymentChain.ChainID)
	totalsOnce(&v)
	s.dashRefundsOf(&v, row.State)
	if !transport.StreamEnds(row.State.Status) { // the payment page's stream: dash.js updates the status badge live
		v.Live, v.LiveEnds = "/api/portal/"+url.PathEscape(id)+"/events", liveEnds()
	}
	v.ChainValid = hist.ChainValid
	if hist.BrokenAt != nil {
		v.BrokenAt = hist.BrokenAt.Version
	}
	for _, e := range hist.Events {
		rec, iso := dashTime(e.RecordedAt)
		v.Events = append(v.Events, dashEvent{Type: e.Type, Recorded: rec, RecordedISO: iso, Hash: e.Hash, Data: dashJSON(e.Data)})
	}
	for _, a := range deliveries {
		at, iso := dashTime(a.AttemptedAt.UnixMilli())
		d := dashDelivery{ID: a.ID.String(), At: at, AtISO: iso, Error: a.Error, Kind: a.Kind, StatusSent: a.StatusSent, OK: a.Error == ""}
		if a.HTTPStatus != nil {
			d.HTTPStatus = strconv.Itoa(*a.HTTPStatus)
		}
		v.Deliveries = append(v.Deliveries, d)
	}
	f.Title, f.Tab = "Receipt "+id, "receipts"
	return s.ui.Render(c.Response(), http.StatusOK, "receipt", f, v)
}

// liveEnds are the statuses at which the receipt's event stream ends (transport.StreamEnds),
// space-separated: dash.js stops following the stream there, since EventSource opens an ended
// stream again (every 2 s, for as long as the page stays open).
func liveEnds() string {
	var ends []string
	for _, st := range receipt.Statuses() {
		if transport.StreamEnds(st) {
			ends = append(ends, string(st))
		}
	}
	return strings.Join(ends, " ")
}

// dashReceiptOf is what the receipt page shows of a receipt's state.
func dashReceiptOf(st receipt.State) dashReceiptView {
	g := st.Receipt
	created, iso := dashTime(g.CreatedAt)
	cur := g.Currency
	v := dashReceiptView{ID: g.ReceiptID, Brand: g.BrandName, TransactionID: g.TransactionID, Created: created, CreatedISO: iso,
		Status: string(st.Status), Currency: cur, Subtotal: dashMoney(g.Subtotal, cur), Tax: dashMoney(g.Tax, cur), Fee: dashMoney(g.Fee, cur),
		Total: dashMoney(g.Total, cur), SplitTx: st.SplitTxHash, RefundTxs: st.RefundTxHashes, Refunded: dashMoney(st.OrderRefundedCents(), cur),
		WebhookURL: g.WebhookURL != ""}
	if x := st.RefundedExcessCents(); x > 0 {
		v.RefundedExcess = dashMoney(x, cur)
	}
	if x := st.RefundedBeforePaymentCents(); x > 0 {
		v.RefundedEarly = dashMoney(x, cur)
	}
	if x := st.ProcessorRefundedCents; x > 0 {
		v.RefundedProcessor = dashMoney(x, cur)
	}
	if r := st.OrderRequestedCents(); r > 0 {
		v.Requested = dashMoney(r, cur)
	}
	if p := st.Payment; p != nil && st.Status != receipt.StatusFailed {
		pay := *p
		v.Payment = &pay
	}
	if fl := st.FailureView(); fl != nil {
		v.Failure = fl.Code + ": " + fl.Reason
	}
	for _, l := range g.LineItems {
		line := dashLine{Label: l.Label, Amount: dashMoney(l.Amount, cur), Kind: l.Kind}
		if l.Kind == receipt.KindItem {
			line.Qty, line.Unit = l.Qty, l.Unit.String()
		}
		v.Lines = append(v.Lines, line)
	}
	if receipt.CanRequestRefund(st) {
		v.CanRefund, v.Unrefunded = true, money.Cents(st.Unrefunded()).String()
	}
	return v
}

// dashJSON is an event's data indented for reading, cut at dashEventBytes.
func dashJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Indent(&b, raw, "", "  ") != nil {
		b.Reset()
		b.Write(raw)
	}
	if b.Len() > dashEventBytes {
		return strings.ToValidUTF8(string(b.Bytes()[:dashEventBytes]), "") + "\n…"
	}
	return b.String()
}
