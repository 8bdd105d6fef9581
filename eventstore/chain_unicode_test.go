package eventstore_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/migrations/pgtest"
)

// TestHashChainHoldsForUnusualPayloadsOnPostgres: the chain is computed over the bytes the
// append prepared and checked over the bytes read back, so PostgreSQL must store data and
// metadata exactly (json, not jsonb): unicode escapes, a NUL escape, characters outside the BMP,
// line and paragraph separators, white space the compaction removes, and an 8 MB value all read
// back with their chain intact, through ReadStream and the global walk `verify` makes.
func TestHashChainHoldsForUnusualPayloadsOnPostgres(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := postgres.New(pgtest.PoolFor(t, pgtest.URL(t)))
	payloads := []string{
		`{"a":"caf\u00e9","b":"\u0000","c":"😀 支付","d":"\u2028\u2029"}`,
		`{ "spaced" : [ 1 , 2.50 , 1e3 ] , "esc":"\"\\\/\b\f\n\r\t" }`,
		`{"big":"` + strings.Repeat("ü", 4<<20) + `"}`,
		`["é",{"k":"\ud83d\ude00"},null,true,-0.0]`,
	}
	stream := "s-☕-" + strings.Repeat("支", 100)
	for i, p := range payloads {
		ev := eventstore.EventData{ID: uuid.New(), Type: "T\u00e9", Data: []byte(p),
			Metadata: eventstore.Metadata{Actor: "wallet:ü", Source: strings.Repeat("\u2028", 3), CorrelationID: "\x01"}}
		if _, err := store.Append(ctx, stream, eventstore.Exact(uint64(i)), ev); err != nil {
			t.Fatalf("payload %d: %v", i, err)
		}
	}
	evs, err := store.ReadStream(ctx, stream, 1, 10)
	if err != nil || len(evs) != len(payloads) {
		t.Fatalf("read: %d events, %v", len(evs), err)
	}
	if brk := eventstore.VerifyChain(evs); brk != nil {
		t.Fatalf("stream chain: %v", brk)
	}
	head, err := store.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if brk, n, err := eventstore.VerifyLog(ctx, store, head, nil); brk != nil || err != nil || n != uint64(len(payloads)) {
		t.Fatalf("log walk: %v %d %v", brk, n, err)
	}
}
