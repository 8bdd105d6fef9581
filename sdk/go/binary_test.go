package payledger_test

import (
	"context"
	"os"
	"testing"
	"time"

	payledger "github.com/payledger/payledger/sdk/go"
)

// binaryClient is a client of the real binary sdk/run-examples.sh starts (PAYLEDGER_BASE_URL,
// PAYLEDGER_API_KEY) and a context of a minute for its calls; it skips the test without one.
func binaryClient(t *testing.T) (context.Context, *payledger.ClientWithResponses) {
	t.Helper()
	base, apiKey := os.Getenv("PAYLEDGER_BASE_URL"), os.Getenv("PAYLEDGER_API_KEY")
	if base == "" || apiKey == "" {
		t.Skip("PAYLEDGER_BASE_URL and PAYLEDGER_API_KEY unset: run sdk/run-examples.sh")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	client, err := payledger.New(base, apiKey)
	if err != nil {
		t.Fatal(err)
	}
	return ctx, client
}
