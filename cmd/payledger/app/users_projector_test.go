package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/cmd/payledger/app"
	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/memory"
	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/migrations/pgtest"
)

// noMetrics is an app.Metrics that counts nothing.
type noMetrics struct{}

func (noMetrics) Delivered(string)                                                {}
func (noMetrics) ObserveJournal(func() (pending, failing int64, failures uint64)) {}

// TestServeUsersProjectorReadsThroughThePort (stop 62): the users projector serve runs reads the
// paid receipts' histories through the event store it is given, so XP is credited on every
// adapter (here the memory one; EVENTSTORE=esdb in production). It read them from the
// PostgreSQL events table, which is empty on any other adapter: every buyer kept 0 XP.
func TestServeUsersProjectorReadsThroughThePort(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := memory.New(time.Now)
	pool := pgtest.Pool(t)
	svc, err := app.Build(ctx, app.Config{Store: store, Pool: pool, Now: time.Now, Log: zerolog.Nop(), Metrics: noMetrics{}, SecretsKey: bytes.Repeat([]byte{7}, 32),
		JournalPath: filepath.Join(t.TempDir(), "journal.jsonl")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Journal.Close() })
	runCtx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { _ = svc.Projections.Users.Run(runCtx) })
	t.Cleanup(func() { cancel(); wg.Wait() })

	buyer := "0x" + strings.Repeat("b", 40)
	g := receipt.Generated{ReceiptID: "xp-live", Merchant: "0x" + strings.Repeat("a", 40), Currency: "USD",
		LineItems: []receipt.LineItem{{Kind: receipt.KindCustom, Label: "x", Amount: money.Cents(12345)}}, Total: money.Cents(12345)}
	if _, _, err := commands.GenerateReceipt(ctx, svc.Events, time.Now(), eventstore.Metadata{Actor: "test"}, g); err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(receipt.PaymentConfirmed{AttemptID: "a-live", BuyerWallet: buyer, VerifiedBy: "chain", At: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Events.Append(ctx, commands.ReceiptStream("xp-live"), eventstore.Any(),
		eventstore.EventData{ID: uuid.New(), Type: receipt.EventConfirmed, Data: data}); err != nil {
		t.Fatal(err)
	}
	wait.Until(t, "the buyer's 123 XP (123.45 USD paid)", 10*time.Second, func() bool {
		var xp int64
		err := pool.QueryRow(ctx, `SELECT coalesce((SELECT xp FROM users WHERE wallet = $1), 0)`, buyer).Scan(&xp)
		return err == nil && xp == 123
	})
}
