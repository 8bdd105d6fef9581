package settlement_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/domain/split"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/internal/syncbuf"
)

// TestDistributeSplitPastAMerchantWhoseSplitCannotBeRead: one merchant's split stream holds an
// event this build cannot read (a newer build's, during a rollback): its receipts stay paid, but
// it is that merchant's alone. Before, the pass returned on its split's load error, so no
// merchant's receipts were released. Now the others are released and reconciled, and every pass
// still returns the error (the worker shows degraded), logged naming the stream.
func TestDistributeSplitPastAMerchantWhoseSplitCannotBeRead(t *testing.T) {
	t.Parallel()
	e := newDistEnv(t)
	bad, _, badSplit, sender := e.merchantWithSplit()
	good, _, goodSplit, _ := e.merchantWithSplit()
	e.pay(badSplit.Address, 2_000_000)
	e.pay(goodSplit.Address, 3_000_000)
	stuck := e.paidReceipt(bad, 200) // first in the paid list: before, every pass ended on it
	paid := e.paidReceipt(good, 300)
	evs, err := e.store.ReadStream(e.ctx, split.Stream(bad), 1, 100)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.Append(e.ctx, split.Stream(bad), eventstore.Exact(uint64(len(evs))),
		eventstore.EventData{ID: uuid.New(), Type: "SplitRecipientsChanged", Data: json.RawMessage(`{"at":2000}`)}); err != nil {
		t.Fatal(err)
	}

	// Passes log through the context's logger; the unreadable split is logged once a minute per
	// merchant, not at every pass.
	var logs syncbuf.Buffer
	e.ctx = zerolog.New(&logs).WithContext(e.ctx)
	h := e.distributor(sender)
	e.until(h, paid)
	if _, err := h.Handle(e.ctx); !errors.Is(err, commands.ErrSplitUndecodable) || !strings.Contains(err.Error(), bad) {
		t.Fatalf("a pass returned %v, want the unreadable split's error naming its merchant (the worker degraded)", err)
	}
	if st := e.state(stuck); st.Status != receipt.StatusPaid {
		t.Fatalf("the unreadable merchant's receipt is %s, want paid: released to recipients a newer build may have changed", st.Status)
	}
	if r := e.releases(badSplit.Address); len(r) != 0 {
		t.Fatalf("releases on the unreadable merchant's split: %v, want none", r)
	}
	if out := logs.String(); strings.Count(out, split.Stream(bad)) == 0 || strings.Count(out, "holds an event this build cannot read") != 1 {
		t.Fatalf("want one error naming %s in the log:\n%s", split.Stream(bad), out)
	}
}
