package commands_test

import (
	"errors"
	"testing"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
)

func TestStartOnramp(t *testing.T) {
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
			_, err := commands.NewStartOnrampHandler(e.store, commands.NewSplits(e.store), p, e.now).Handle(e.ctx, commands.StartOnramp{ReceiptID: c.receiptID})
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
	out, err := commands.NewStartOnrampHandler(e.store, commands.NewSplits(e.store), f, e.now).Handle(e.ctx, commands.StartOnramp{ReceiptID: open})
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
