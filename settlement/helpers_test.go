package settlement_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
)

// The settlement tests share these helpers with commands' payment tests (their copies live in
// commands/payments_test.go): the processes record through the same pipeline.

var (
	payMerchant = "0x" + strings.Repeat("a", 40)
	payPlatform = "0x" + strings.Repeat("b", 40)
)

// payEnv is an event store and a fixed clock.
type payEnv struct {
	t     testing.TB
	ctx   context.Context
	store commands.Store
	at    time.Time
}

// receipt generates a receipt of one line for merchant and returns its id.
func (e *payEnv) receipt(merchant, currency string, total money.Cents) string {
	e.t.Helper()
	id := commands.NewReceiptID(e.at)
	g := receipt.Generated{ReceiptID: id, Merchant: merchant, Source: "direct", Currency: currency, TaxRate: "0", TaxComponents: []string{},
		LineItems: []receipt.LineItem{{Kind: receipt.KindCustom, Label: "Order", Amount: total}}, Subtotal: total, Total: total,
		RedirectURL: "https://shop.example/back"}
	if _, _, err := commands.GenerateReceipt(e.ctx, e.store, e.at, eventstore.Metadata{}, g); err != nil {
		e.t.Fatalf("generate: %v", err)
	}
	return id
}

func (e *payEnv) now() time.Time { return e.at }

func (e *payEnv) state(id string) receipt.State {
	e.t.Helper()
	l, err := commands.LoadReceipt(e.ctx, e.store, id)
	if err != nil {
		e.t.Fatalf("load: %v", err)
	}
	return l.State
}

// wantRefusal fails unless err is the refusal with code whose message starts with message.
func wantRefusal(t testing.TB, err error, code, message string) {
	t.Helper()
	var r *commands.Refusal
	if !errors.As(err, &r) || r.Code != code || !strings.HasPrefix(r.Message, message) {
		t.Fatalf("error %v, want refusal %s %q", err, code, message)
	}
}
