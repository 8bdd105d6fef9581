package settlement_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
)

// appendHooked is the ledger's store that runs before once, just before the first append to
// stream: another writer's change landing between a reader's load and its append.
type appendHooked struct {
	commands.Store
	stream string
	before func()
	once   sync.Once
}

func (h *appendHooked) Append(ctx context.Context, stream string, expected eventstore.ExpectedVersion, events ...eventstore.EventData) (eventstore.AppendResult, error) {
	if stream == h.stream {
		h.once.Do(h.before)
	}
	return h.Store.Append(ctx, stream, expected, events...)
}

// Stop 64: the verifier judged a claim on the receipt as it loaded it and recorded the verdict on
// the receipt as it appended to it. A claim refused meanwhile (by another instance: its hour
// without the transaction ended as this one found it) and the hash claimed again for more was
// recorded processed for the new amount on a transfer of the old one. The verdict is now judged
// again on the state appended to: the new claim waits, and is refused at the next step with what
// the chain shows.
func TestRefundJudgedOnTheClaimItRecords(t *testing.T) {
	t.Parallel()
	e := newRefundEnv(t)
	r := e.paid(1000)
	id := r.Receipt.ReceiptID
	tx := e.send(e.customer, 5_000_000)
	e.mined(tx)
	e.commit()
	hash := strings.ToLower(tx.Hash().Hex())
	if _, err := e.claim(r, "5", hash); err != nil {
		t.Fatal(err)
	}
	v := *e.verifier
	v.Events = &appendHooked{Store: e.store, stream: commands.ReceiptStream(id), before: func() {
		_, _, err := commands.ChangeReceipt(e.ctx, e.store, id, eventstore.Metadata{}, func(st receipt.State) ([]receipt.Event, error) {
			return receipt.RefuseRefund(st, hash, "refused by another instance", e.clock.now().UnixMilli())
		})
		e.ok(err)
		_, err = e.claim(e.state(id), "10", hash)
		e.ok(err)
	}}
	if _, err := v.Step(e.ctx); err != nil {
		t.Fatal(err)
	}
	e.synced()
	if st, rec := e.refund(id, hash); st.RefundedCents != 0 || rec.State != receipt.RefundStateClaimed || rec.AmountCents != 1000 {
		t.Fatalf("a transfer of 5 USDC recorded for a claim of 10: refunded %d, %+v", st.RefundedCents, rec)
	}
	if res := e.verify(); res.Refused != 1 {
		t.Fatalf("next step %+v", res)
	}
	if st, rec := e.refund(id, hash); st.RefundedCents != 0 || rec.State != receipt.RefundStateRefused || !strings.Contains(rec.RefusedReason, "less than") {
		t.Fatalf("after the next step: refunded %d, %+v", st.RefundedCents, rec)
	}
}
