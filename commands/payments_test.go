package commands_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/domain/split"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/memory"
	"github.com/payledger/payledger/settlement"
)

// The payment commands' tests run on the memory event store (no HTTP, no database) unless a read
// model takes part; they share the helpers of this file.

var (
	payMerchant = "0x" + strings.Repeat("a", 40)
	payOther    = "0x" + strings.Repeat("1", 40)
	payPlatform = "0x" + strings.Repeat("b", 40)
	payContract = "0x" + strings.Repeat("c", 40)
)

// payEnv is an event store and a fixed clock.
type payEnv struct {
	t     testing.TB
	ctx   context.Context
	store commands.Store
	at    time.Time
}

func newPayEnv(t testing.TB) *payEnv {
	t.Helper()
	at := time.UnixMilli(1_795_000_000_000)
	return &payEnv{t: t, ctx: context.Background(), store: memory.New(func() time.Time { return at }), at: at}
}

func (e *payEnv) now() time.Time { return e.at }

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

// configureSplit configures merchant's split to payContract.
func (e *payEnv) configureSplit(merchant string) {
	e.t.Helper()
	if _, err := commands.ConfigureSplit(e.ctx, e.store, e.at, eventstore.Metadata{}, split.Configure{Merchant: merchant, Address: payContract, Platform: payPlatform}); err != nil {
		e.t.Fatalf("configure split: %v", err)
	}
}

// paid makes receipt id paid through a processor session of its own.
func (e *payEnv) paid(id string) {
	e.t.Helper()
	u := receipt.ProcessorUpdate{SessionID: "cos_paid", Status: "fulfillment_complete", TransactionHash: "0x" + strings.Repeat("9", 64), At: 1}
	if _, _, err := commands.ChangeReceipt(e.ctx, e.store, id, eventstore.Metadata{}, func(st receipt.State) ([]receipt.Event, error) {
		due, err := receipt.DueUSD(st) // a success pays only with the amount due
		u.SourceAmountCents = (*int64)(&due)
		if err != nil {
			return nil, err
		}
		return receipt.DecideProcessorUpdate(st, u)
	}); err != nil {
		e.t.Fatalf("pay: %v", err)
	}
	if st := e.state(id); st.Status != receipt.StatusPaid {
		e.t.Fatalf("status %s, want paid", st.Status)
	}
}

func (e *payEnv) state(id string) receipt.State {
	e.t.Helper()
	l, err := commands.LoadReceipt(e.ctx, e.store, id)
	if err != nil {
		e.t.Fatalf("load: %v", err)
	}
	return l.State
}

// history is the types of receipt id's events, comma-separated.
func (e *payEnv) history(id string) string {
	e.t.Helper()
	evs, err := commands.ReadReceiptEvents(e.ctx, e.store, id)
	if err != nil {
		e.t.Fatalf("read: %v", err)
	}
	types := make([]string, len(evs))
	for i, ev := range evs {
		types[i] = ev.Type
	}
	return strings.Join(types, ",")
}

// wantRefusal fails unless err is the refusal with code whose message starts with message.
func wantRefusal(t testing.TB, err error, code, message string) {
	t.Helper()
	var r *commands.Refusal
	if !errors.As(err, &r) || r.Code != code || !strings.HasPrefix(r.Message, message) {
		t.Fatalf("error %v, want refusal %s %q", err, code, message)
	}
}

// fakeProcessor is the processor's session API in memory.
type fakeProcessor struct {
	mu        sync.Mutex
	sessions  map[string]commands.OnrampSession
	created   []commands.OnrampRequest
	createErr error
	getErr    error
}

var _ commands.Processor = (*fakeProcessor)(nil)

func newFakeProcessor() *fakeProcessor {
	return &fakeProcessor{sessions: map[string]commands.OnrampSession{}}
}

func (f *fakeProcessor) Create(_ context.Context, req commands.OnrampRequest) (commands.OnrampSession, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.createErr != nil {
		return commands.OnrampSession{}, f.createErr
	}
	f.created = append(f.created, req)
	s := commands.OnrampSession{ID: fmt.Sprintf("cos_%d", len(f.created)), Status: "created", RedirectURL: "https://onramp.example/" + req.AttemptID}
	f.sessions[s.ID] = s
	return s, nil
}

func (f *fakeProcessor) Get(_ context.Context, id string) (commands.OnrampSession, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s, ok := f.sessions[id]
	if f.getErr != nil || !ok {
		return s, errors.Join(f.getErr, fmt.Errorf("no session %s", id))
	}
	return s, nil
}

func (f *fakeProcessor) set(id string, change func(*commands.OnrampSession)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.sessions[id]
	change(&s)
	f.sessions[id] = s
}

func (f *fakeProcessor) creates() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.created)
}

func amount(s string) *json.Number { n := json.Number(s); return &n }

func TestPaymentHandlersRejectNilDependencies(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t)
	splits := commands.NewSplits(e.store)
	verify := commands.NewReconcileOnrampHandler(e.store, nil, noOpenAttempts{}, e.now)
	for name, build := range map[string]func(){
		"start onramp":    func() { commands.NewStartOnrampHandler(e.store, nil, nil, noPrices{}, e.now) },
		"wallet payment":  func() { commands.NewSubmitWalletPaymentHandler(nil, nil, nil, nil, e.now) },
		"telemetry":       func() { commands.NewRecordTelemetryHandler(e.store, nil, e.now) },
		"processor event": func() { commands.NewApplyProcessorEventHandler(e.store, nil, e.now) },
		"reconcile":       func() { commands.NewReconcileOnrampHandler(e.store, nil, nil, e.now) },
		"reconciler":      func() { settlement.NewOnrampReconciler(verify, nil, time.Second, 0, zerolog.Nop()) },
		"refund":          func() { commands.NewRefundHandler(e.store, nil, e.now) },
		"terminal":        func() { commands.NewTerminalHandler(e.store, nil, e.now) },
		"quote":           func() { commands.NewQuoteTokenHandler(e.store, nil, e.now) },
		"configure split": func() { commands.NewConfigureSplitHandler(nil, "", e.now) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("a nil dependency was accepted")
				}
			}()
			build()
		})
	}
	// The processor alone may be missing: the onramp is then not configured.
	_ = commands.NewStartOnrampHandler(e.store, splits, nil, noPrices{}, e.now)
}
