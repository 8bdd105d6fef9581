package transport

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/payledger/payledger/cmd/payledger/app"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/internal/cache/cachetest"
	"github.com/payledger/payledger/internal/wait"
)

// TestARevokedKeysStreamEndsWithinTheBoundWhileTheListenerIsSilent: the cache listener's
// connection stays open and hears nothing (a failover behind pgbouncer or HAProxy left it on the
// old server), and a key with an open stream is revoked meanwhile. The revocation's announcement
// never arrives, yet the stream ends within DESIGN 10's 5 s: the listener's probe does not come
// back, so the listener counts as down and the streams re-check as without one. Before, the
// stream trusted the silent listener and read the key again only at its 30 s safety read.
func TestARevokedKeysStreamEndsWithinTheBoundWhileTheListenerIsSilent(t *testing.T) {
	t.Parallel()
	var proxy *cachetest.Proxy
	e := newAppEnv(t, func(cfg *app.Config) {
		cfg.Pool, proxy = cachetest.Pool(t, cfg.Pool)
		cfg.Store = postgres.New(cfg.Pool)
	}, nil, nil)
	wallet := walletOf(e.admin)
	secret := e.key(wallet, "receipts:read")
	key, err := e.keys.Authenticate(context.Background(), secret)
	if err != nil {
		t.Fatal(err)
	}
	wait.Until(t, "the announcements to be heard", 10*time.Second, func() bool {
		_, listening := e.srv.revocations.Wait()
		return listening
	})
	var port int
	wait.Until(t, "the listener's connection", 10*time.Second, func() bool {
		p, err := proxy.ListenerPort(context.Background(), e.pool)
		if err != nil {
			t.Fatal(err)
		}
		port = p
		return p != 0
	})

	srv := httptest.NewServer(e.srv)
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel) // before Close, registered earlier: Close waits for the stream
	hr, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/api/webhooks/stream", nil)
	hr.Header.Set("x-api-key", secret)
	resp, err := http.DefaultClient.Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("stream: %d", resp.StatusCode)
	}
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
	}()

	if !proxy.Silence(port) {
		t.Fatal("the listener's connection is not the proxy's")
	}
	if err := e.keys.Revoke(context.Background(), wallet, key.ID); err != nil {
		t.Fatal(err)
	}
	wait.Until(t, "the revoked key's stream to end (DESIGN 10: within 5 s)", 5*time.Second, func() bool {
		select {
		case <-ended:
			return true
		default:
			return false
		}
	})
}
