package postgres

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/migrations/pgtest"
)

// BenchmarkManyStreamsRows writes what a confirming block's chunk writes (1,000 receipts, three
// events each, about 600 bytes of data per event) in one transaction, as one INSERT of arrays
// (insertRows) and by COPY (copyRows): the choice AppendStreams makes by batch size.
func BenchmarkManyStreamsRows(b *testing.B) {
	s := New(pgtest.Pool(b))
	ctx := context.Background()
	batch := 0
	recs := func() []eventstore.RecordedEvent {
		batch++
		var out []eventstore.RecordedEvent
		for i := range 1000 {
			evs := make([]eventstore.EventData, 3)
			for j := range evs {
				evs[j] = eventstore.EventData{ID: uuid.New(), Type: "DepositTransferConfirmed", Metadata: eventstore.Metadata{Actor: "chain", Source: "deposit-detector"},
					Data: fmt.Appendf(nil, `{"receiptId":"r-%d-%d","transactionHash":"0x%064x","logIndex":%d,"blockNumber":12,"blockHash":"0x%064x",`+
						`"sender":"0x%040x","token":"USDC","amountUnits":"1000000","decimals":6,"usdValue":"1.00","at":1764400000000,"note":"%0300d"}`,
						batch, i, i, j, batch, i, 0)}
			}
			prepared, err := eventstore.Prepare(fmt.Sprintf("receipt-%d-%d", batch, i), 0, nil, time.Now(), evs)
			if err != nil {
				b.Fatal(err)
			}
			out = append(out, prepared...)
		}
		return out
	}
	for _, m := range []struct {
		name  string
		write func([]eventstore.RecordedEvent) error
	}{
		{"insert", func(r []eventstore.RecordedEvent) error {
			_, err := s.insertRows(ctx, pendingAppend{recs: r})
			return err
		}},
		{"copy", func(r []eventstore.RecordedEvent) error { _, err := s.copyRows(ctx, r); return err }},
	} {
		b.Run(m.name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				r := recs()
				b.StartTimer()
				if err := m.write(r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
