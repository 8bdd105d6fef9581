package webhooks

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/internal/secrets"
	"github.com/payledger/payledger/migrations/pgtest"
	"github.com/payledger/payledger/readmodels"
)

// TestDeliveryErrorsAreCategories: issue 36 finding 10. A failed delivery shows the merchant a
// category (DESIGN 10), never the Go error's text, which named the service's resolver and
// internal addresses; a name that resolves only to refused addresses (localhost, seen by a
// production dialer) and a name that does not resolve both read dns_error.
func TestDeliveryErrorsAreCategories(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	keys, err := secrets.NewWebhookKeys(pool, bytes.Repeat([]byte{9}, 32))
	if err != nil {
		t.Fatal(err)
	}
	store, ctx := readmodels.NewEndpoints(pool, keys), context.Background()
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusBadGateway) }))
	defer failing.Close()
	hang := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-hang }))
	defer slow.Close()
	defer close(hang)
	closed, _ := net.Listen("tcp", "127.0.0.1:0")
	refusedURL := "http://" + closed.Addr().String() + "/hook"
	closed.Close()
	cases := []struct{ name, url, want string }{
		{"not resolving", "http://no-such-receiver.invalid/hook", ErrorDNS},
		{"refused port", refusedURL, ErrorConnectionRefused},
		{"receiver answers 502", failing.URL, ErrorHTTPStatus},
		{"receiver hangs", slow.URL, ErrorTimeout},
		{"https to a plain HTTP receiver", strings.Replace(failing.URL, "http://", "https://", 1), ErrorTLS},
	}
	d := (&Dispatcher{Outbox: readmodels.NewOutbox(pool), Keys: keys, Events: postgres.New(pool), Log: zerolog.Nop(), Endpoints: store,
		RetryDelay: time.Hour, Timeout: 500 * time.Millisecond}).Init()
	for _, c := range cases {
		if got := endpointAttemptError(t, d, store, c.url); got != c.want {
			t.Errorf("%s: error %q, want %q", c.name, got, c.want)
		}
	}
	// Production: a name resolving to loopback and one that resolves to nothing read alike, and
	// the dialer's own answer for both is a category.
	prod := &Dispatcher{Production: true}
	for _, host := range []string{"localhost", "no-such-receiver.invalid"} {
		_, err := prod.dial(ctx, "tcp", net.JoinHostPort(host, "443"))
		if got := deliveryError(err); got != ErrorDNS {
			t.Errorf("production dial to %s: %q (%v), want dns_error", host, got, err)
		}
	}
}

// endpointAttemptError registers an endpoint on url, sends it one event and returns the error
// its attempt recorded.
func endpointAttemptError(t *testing.T, d *Dispatcher, store *readmodels.Endpoints, url string) string {
	t.Helper()
	ctx := context.Background()
	secret, _ := NewSecret()
	ep, err := store.Create(ctx, "0xmerchant", url, []string{"*"}, secret, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	key := "k-" + ep.ID.String()
	if err := store.Record(ctx, readmodels.NewEvent{Key: key, Merchant: "0xmerchant", Type: TypeTest, At: time.Now(), Data: map[string]any{},
		Endpoint: &ep.ID}); err != nil {
		t.Fatal(err)
	}
	if n, err := d.SendEndpointsDue(ctx); err != nil || n != 1 {
		t.Fatalf("send to %s: %d %v", url, n, err)
	}
	list, err := store.Attempts(ctx, "0xmerchant", ep.ID, 10)
	if err != nil || len(list) != 1 {
		t.Fatalf("attempts of %s: %+v %v", url, list, err)
	}
	return list[0].Error
}
