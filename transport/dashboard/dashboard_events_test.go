package dashboard_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/payledger/payledger/transport/transporttest"
)

// liveList is one GET /dashboard/events being read: its status, its body when refused (the
// envelope), ended (closed when the body ends) and cancel, which closes it from the client's side.
type liveList struct {
	code   int
	body   map[string]any
	ended  chan struct{}
	cancel context.CancelFunc
}

// openLiveList opens the receipts list's stream of base with cookies (or, with key, the API's
// stream with that key) and reads it until it ends; the test's end closes it.
func openLiveList(t *testing.T, base string, cookies []*http.Cookie, key string) *liveList {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel) // before the server's Close, registered earlier: Close waits for the streams
	url := base + "/dashboard/events?ids=rcpt_live1,rcpt_live2"
	if key != "" {
		url = base + "/api/webhooks/stream"
	}
	hr, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	for _, c := range cookies {
		hr.AddCookie(c)
	}
	if key != "" {
		hr.Header.Set("Ocp-Apim-Subscription-Key", key)
	}
	resp, err := http.DefaultClient.Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	l := &liveList{code: resp.StatusCode, ended: make(chan struct{}), cancel: cancel}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		_ = json.NewDecoder(resp.Body).Decode(&l.body)
		close(l.ended)
		return l
	}
	go func() {
		defer close(l.ended)
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
	}()
	return l
}

// A merchant's live lists take the stream slots its API streams take (one session opened 30, each
// holding 50 receipt watches and 50 goroutines for 10 minutes): at most 5 open at once, then 429
// rate_limited in the envelope, as /api/webhooks/stream answers; another merchant keeps its own
// slots, and a list that ends gives its slot back.
func TestDashboardEventsTakeTheMerchantsStreamSlots(t *testing.T) {
	e := dashEnv(t, nil)
	m, other := e.Merchant(false), e.Merchant(false)
	srv := httptest.NewServer(e.Srv)
	t.Cleanup(srv.Close)
	var open []*liveList
	for i := range 5 {
		l := openLiveList(t, srv.URL, m.Cookies, "")
		if l.code != http.StatusOK {
			t.Fatalf("live list %d: %d %v", i+1, l.code, l.body)
		}
		open = append(open, l)
	}
	if l := openLiveList(t, srv.URL, m.Cookies, ""); l.code != http.StatusTooManyRequests || l.body["error"] != "rate_limited" || l.body["resetAt"] == nil {
		t.Fatalf("a sixth live list of the merchant: %d %v, want 429 rate_limited", l.code, l.body)
	}
	if l := openLiveList(t, srv.URL, nil, m.Key); l.code != http.StatusTooManyRequests || l.body["error"] != "rate_limited" || l.body["resetAt"] == nil {
		t.Fatalf("the API's stream with 5 live lists open: %d %v, want 429 rate_limited (the same slots)", l.code, l.body)
	}
	if l := openLiveList(t, srv.URL, other.Cookies, ""); l.code != http.StatusOK {
		t.Fatalf("another merchant's live list: %d %v", l.code, l.body)
	}
	open[0].cancel()
	<-open[0].ended
	// The handler gives the slot back once it sees the client gone: a refused try holds none.
	transporttest.WaitUntil(t, "the closed live list's slot to be given back", 5*time.Second, func() bool {
		return openLiveList(t, srv.URL, m.Cookies, "").code == http.StatusOK
	})
}

// A live list ends within 5 s after its session's token expires on the service's clock, which
// no database announcement tells (it ran on to the watcher's next safety read, up to 30 s); a
// list of a later session of the same wallet, not expired yet, goes on.
func TestDashboardEventsEndWhenTheSessionExpires(t *testing.T) {
	e := dashEnv(t, nil)
	m := e.Merchant(false)
	e.Clk.Advance(2 * time.Hour)
	later, _ := e.Login(m.Priv)
	srv := httptest.NewServer(e.Srv)
	t.Cleanup(srv.Close)
	first, second := openLiveList(t, srv.URL, m.Cookies, ""), openLiveList(t, srv.URL, later, "")
	if first.code != http.StatusOK || second.code != http.StatusOK {
		t.Fatalf("live lists: %d %v, %d %v", first.code, first.body, second.code, second.body)
	}
	e.Clk.Advance(23 * time.Hour) // the first session (24 h) has expired, the later has 1 h left
	select {
	case <-first.ended:
	case <-time.After(5 * time.Second):
		t.Fatal("the live list of an expired session still streams 5 s after its expiry")
	}
	select {
	case <-second.ended:
		t.Fatal("the live list of a session that has not expired ended")
	default:
	}
}
