package commands_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
)

func TestStartOnramp(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t)
	e.configureSplit(payMerchant)
	open := e.receipt(payMerchant, "USD", 1250)
	paid := e.receipt(payMerchant, "USD", 300)
	e.paid(paid)
	noSplit := e.receipt(payOther, "USD", 500)
	cases := []struct {
		name      string
		processor func() *fakeProcessor // nil: not configured
		receiptID string
		want      error
	}{
		{"processor not configured", nil, open, commands.ErrProcessorNotSetUp},
		{"unknown receipt", newFakeProcessor, "rcpt_nobody", receipt.ErrNotFound},
		{"paid: no attempt may start", newFakeProcessor, paid, receipt.ErrState},
		{"merchant without a split", newFakeProcessor, noSplit, commands.ErrSplitRequired},
		{"processor refuses", func() *fakeProcessor { f := newFakeProcessor(); f.createErr = errors.New("boom"); return f }, open, commands.ErrProcessorUnavailable},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var p commands.Processor
			var f *fakeProcessor
			if c.processor != nil {
				f = c.processor()
				p = f
			}
			before := e.history(c.receiptID)
			_, err := commands.NewStartOnrampHandler(e.store, commands.NewSplits(e.store), p, noPrices{}, e.now).Handle(e.ctx, commands.StartOnramp{ReceiptID: c.receiptID})
			if !errors.Is(err, c.want) {
				t.Fatalf("error %v, want %v", err, c.want)
			}
			if f != nil && f.createErr == nil && f.creates() != 0 {
				t.Fatal("a session was asked for although the attempt could not start")
			}
			if after := e.history(c.receiptID); after != before {
				t.Fatalf("a refused start appended events: %s", after)
			}
		})
	}

	f := newFakeProcessor()
	out, err := commands.NewStartOnrampHandler(e.store, commands.NewSplits(e.store), f, noPrices{}, e.now).Handle(e.ctx, commands.StartOnramp{ReceiptID: open})
	if err != nil {
		t.Fatal(err)
	}
	req := f.created[0]
	if req.ReceiptID != open || req.AttemptID != out.AttemptID || req.AmountUSD != "12.50" || req.Token != "USDC" ||
		req.DestinationWallet != payContract || req.RedirectURL != "https://shop.example/back" {
		t.Fatalf("session request %+v", req)
	}
	st := e.state(open)
	a, ok := st.Current()
	if !ok || a.ID != out.AttemptID || a.Kind != "onramp" || a.SessionID != out.SessionID || !a.SessionUnique || st.Status != receipt.StatusGenerated ||
		out.RedirectURL != "https://onramp.example/"+out.AttemptID || out.Result.Version != 2 {
		t.Fatalf("attempt %+v, status %s, answer %+v", a, st.Status, out)
	}
}

// noPrices has no price set.
type noPrices struct{}

func (noPrices) USDPrices(context.Context) (map[string]string, error) {
	return map[string]string{}, nil
}

type eurPrices string

func (p eurPrices) USDPrices(context.Context) (map[string]string, error) {
	return map[string]string{"EUR": string(p)}, nil
}

// An EUR receipt is sent to the processor in USD at its recorded EUR/USD rate, half-up to the
// cent; without a recorded rate the current one is recorded first (issue 20, item 2: the EUR
// total used to be sent as dollars).
func TestStartOnrampConvertsEURWithTheRecordedRate(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t)
	e.configureSplit(payMerchant)
	f := newFakeProcessor()
	start := commands.NewStartOnrampHandler(e.store, commands.NewSplits(e.store), f, eurPrices("1.0855"), e.now)

	unquoted := e.receipt(payMerchant, "EUR", 10000) // 100.00 EUR
	if _, err := start.Handle(e.ctx, commands.StartOnramp{ReceiptID: unquoted}); err != nil {
		t.Fatal(err)
	}
	if got := f.created[0].AmountUSD; got != "108.55" {
		t.Fatalf("amountUsd %s, want 108.55", got)
	}
	if st := e.state(unquoted); st.EURUSDRate != "1.0855" || !strings.Contains(e.history(unquoted), receipt.EventTokenQuoted) {
		t.Fatalf("the rate was not recorded: %q, %s", st.EURUSDRate, e.history(unquoted))
	}

	quoted := e.receipt(payMerchant, "EUR", 1234) // 12.34 EUR at the recorded 1.2345 = 15.233... -> 15.23
	quote := commands.NewQuoteTokenHandler(e.store, eurPrices("1.2345"), e.now)
	if _, err := quote.Handle(e.ctx, commands.QuoteToken{ReceiptID: quoted, Token: "USDC"}); err != nil {
		t.Fatal(err)
	}
	if _, err := start.Handle(e.ctx, commands.StartOnramp{ReceiptID: quoted}); err != nil {
		t.Fatal(err)
	}
	if got := f.created[1].AmountUSD; got != "15.23" {
		t.Fatalf("amountUsd %s, want 15.23 (the recorded rate, not the current one)", got)
	}
	half, _ := commands.ConvertEURToUSD(1, "0.5") // 0.005 USD rounds half-up to a cent
	if half != 1 {
		t.Fatalf("half-up: %d", half)
	}

	noRate := e.receipt(payMerchant, "EUR", 500)
	_, err := commands.NewStartOnrampHandler(e.store, commands.NewSplits(e.store), f, noPrices{}, e.now).Handle(e.ctx, commands.StartOnramp{ReceiptID: noRate})
	wantRefusal(t, err, "price_unavailable", "No EUR/USD rate is set")
}

// racingPrices answers its first two reads only when both are under way, each with its own
// EUR/USD rate: two starts that read the rate outside the append both record a first quote.
type racingPrices struct {
	mu    sync.Mutex
	calls int
	both  chan struct{}
}

func (p *racingPrices) USDPrices(ctx context.Context) (map[string]string, error) {
	p.mu.Lock()
	p.calls++
	n := p.calls
	if n == 2 {
		close(p.both)
	}
	p.mu.Unlock()
	select {
	case <-p.both:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return map[string]string{"EUR": []string{"1.10", "1.20"}[min(n, 2)-1]}, nil
}

// Concurrent first starts of an EUR receipt record one first quote, and both sessions are asked
// at its rate (the first quote's rate holds).
func TestConcurrentFirstOnrampStartsShareTheFirstRate(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t)
	e.configureSplit(payMerchant)
	f := newFakeProcessor()
	prices := &racingPrices{both: make(chan struct{})}
	start := commands.NewStartOnrampHandler(e.store, commands.NewSplits(e.store), f, prices, e.now)
	id := e.receipt(payMerchant, "EUR", 10000)
	ctx, cancel := context.WithTimeout(e.ctx, 30*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = start.Handle(ctx, commands.StartOnramp{ReceiptID: id})
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil && !errors.Is(err, receipt.ErrOnrampLimited) {
			t.Fatal(err)
		}
	}
	if n := strings.Count(e.history(id), receipt.EventTokenQuoted); n != 1 {
		t.Fatalf("%d quotes recorded, want 1: %s", n, e.history(id))
	}
	rate := e.state(id).EURUSDRate
	want, _ := commands.ConvertEURToUSD(10000, rate)
	for _, req := range f.created {
		if string(req.AmountUSD) != want.String() {
			t.Fatalf("session asked for %s, want %s at the recorded rate %s", req.AmountUSD, want, rate)
		}
	}
}
