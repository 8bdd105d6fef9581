package esdb_test

import (
	"os"
	"testing"

	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/conformance"
	"github.com/payledger/payledger/eventstore/esdb"
)

func TestConformance(t *testing.T) {
	url := os.Getenv("EVENTSTORE_URL")
	if url == "" {
		t.Skip("EVENTSTORE_URL is not set: no KurrentDB/EventStoreDB server runs on this machine, so the esdb adapter's conformance run is skipped (set EVENTSTORE_URL=esdb://127.0.0.1:2113?tls=false to run it)")
	}
	conformance.Run(t, conformance.Harness{
		New: func(t *testing.T) eventstore.Store {
			s, err := esdb.Open(url)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Close() })
			return s
		},
	})
}
