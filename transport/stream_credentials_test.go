package transport

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
)

// racedSessions is the session store with one read made stale: armed for a wallet, its next
// Revoked of that wallet reads the answer, then the session is logged out (Revoke announces it)
// and the announcement heard by the server, and only then is the read answered. That is a logout
// whose announcement arrives while the stream's watcher is checking the session.
type racedSessions struct {
	SessionStore
	srv   func() *Server
	armed atomic.Pointer[string]
	fired chan struct{}
	t     *testing.T
}

func (r *racedSessions) Revoked(ctx context.Context, tokenID, wallet string, issuedAt time.Time) (bool, error) {
	revoked, err := r.SessionStore.Revoked(ctx, tokenID, wallet, issuedAt)
	if w := r.armed.Load(); w == nil || *w != wallet || !r.armed.CompareAndSwap(w, nil) {
		return revoked, err
	}
	defer close(r.fired)
	heard, _ := r.srv().revocations.Wait()
	now := r.srv().now()
	if err := r.SessionStore.Revoke(context.Background(), tokenID, now.Add(sessionTTL), now); err != nil {
		r.t.Errorf("logout during the check: %v", err)
		return revoked, err
	}
	select {
	case <-heard:
	case <-time.After(10 * time.Second):
		r.t.Error("the logout's announcement was not heard within 10 s")
	}
	return revoked, err
}

// A logout announced while the watcher checks the session still ends the stream within 5 s: the
// watcher subscribes to the announcements before it checks, so the one made during the check
// wakes it again (it subscribed after, missed it and streamed on to its next safety read, 30 s).
func TestStreamEndsOnALogoutAnnouncedDuringItsCheck(t *testing.T) {
	raced := &racedSessions{fired: make(chan struct{}), t: t}
	e := newEnv(t, func(d *testDeps) { raced.SessionStore, d.Sessions = d.Sessions, raced })
	raced.srv = func() *Server { return e.srv }
	priv, _ := crypto.GenerateKey()
	other, _ := crypto.GenerateKey()
	cookies, _ := e.login(priv)
	otherCookies, _ := e.login(other)
	// Listening: the watcher reads again only when woken or every credentialSafety.
	waitUntil(t, "the announcements to be heard", 10*time.Second, func() bool {
		_, listening := e.srv.revocations.Wait()
		return listening
	})
	srv := httptest.NewServer(e.srv)
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel) // before Close, registered earlier: Close waits for the stream
	hr, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/dashboard/events?ids=rcpt_a", nil)
	for _, c := range cookies {
		hr.AddCookie(c)
	}
	resp, err := http.DefaultClient.Do(hr)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("stream: %v %v", resp, err)
	}
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
	}()
	wallet := walletOf(priv)
	raced.armed.Store(&wallet)
	// Another wallet's logout wakes the watcher, whose check of this session meets the race.
	if rec := e.do(req{method: http.MethodPost, path: "/api/auth/logout", cookies: otherCookies}); rec.Code != 200 {
		t.Fatalf("the other wallet's logout: %d %s", rec.Code, rec.Body)
	}
	select {
	case <-raced.fired:
	case <-time.After(10 * time.Second):
		t.Fatal("the watcher did not check the session after an announcement")
	}
	select {
	case <-ended:
	case <-time.After(5 * time.Second):
		t.Fatal("the stream of a session logged out during its check still streams 5 s after")
	}
}
