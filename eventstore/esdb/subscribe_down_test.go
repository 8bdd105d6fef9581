package esdb_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/esdb"
)

// TestSubscribeToAServerThatIsNotThereFails: a subscription the server cannot give (down,
// unreachable, refusing the caller) ends Subscribe with the error, as the port says, so the
// projections runner logs it and tries again from its checkpoint. It used to retry every second
// inside Subscribe for ever: a projector on KurrentDB stood still with no line in the log.
// Runs without a server: the address is a port nothing listens on.
func TestSubscribeToAServerThatIsNotThereFails(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	s, err := esdb.Open(fmt.Sprintf("esdb://%s?tls=false&maxDiscoverAttempts=1&discoveryInterval=10&gossipTimeout=1", addr))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	// A guard only: the subscription fails at its first try.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	err = s.Subscribe(ctx, eventstore.Start, func(context.Context, []eventstore.RecordedEvent) error {
		return errors.New("no event can arrive")
	})
	if err == nil || errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
		t.Fatalf("Subscribe to a server that is not there returned %v (context: %v), want its error at once", err, ctx.Err())
	}
}
