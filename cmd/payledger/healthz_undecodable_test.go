package main

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/migrations/pgtest"
)

// TestHealthzNamesAProjectorStoppedAtAnEventItCannotDecode: against `serve`, a receipt event that
// does not decode (here a confirmation whose attemptId is a number) stops the receipts projection,
// and /healthz answers degraded naming it, with the event in the log. The projector used to retry
// the batch every second for ever while /healthz said ok.
func TestHealthzNamesAProjectorStoppedAtAnEventItCannotDecode(t *testing.T) {
	t.Parallel()
	dbURL := pgtest.URL(t)
	dir := filepath.Join(t.TempDir(), ".data")
	base, logs := startServe(t, map[string]string{"DATABASE_URL": dbURL, "DEV_DATA_DIR": dir, "DEVCHAIN": "off"})
	pool := pgtest.PoolFor(t, dbURL)
	generateReceipts(t, pool, "stuck", 1)
	bad := eventstore.EventData{ID: uuid.New(), Type: receipt.EventConfirmed, Data: json.RawMessage(`{"attemptId":7,"verifiedBy":"chain"}`)}
	if _, err := postgres.New(pool).Append(context.Background(), receipt.Stream("stuck-0"), eventstore.Exact(1), bad); err != nil {
		t.Fatal(err)
	}
	var last string
	stuck := wait.Poll(60*time.Second, func() bool {
		resp, err := http.Get(base + "/healthz")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		var out struct {
			Status string   `json:"status"`
			Stuck  []string `json:"stuck"`
		}
		if json.NewDecoder(resp.Body).Decode(&out) != nil {
			return false
		}
		last = out.Status + " " + strings.Join(out.Stuck, ", ")
		return out.Status == "degraded" && slices.Contains(out.Stuck, "receipts projection")
	})
	if !stuck {
		t.Fatalf("/healthz: %s, want degraded naming the receipts projection", last)
	}
	if !strings.Contains(logs.String(), "event does not decode: receipt-stuck-0 version 2 (PaymentConfirmed)") {
		t.Fatalf("the log does not name the event:\n%s", tail(logs.String(), 4000))
	}
}
