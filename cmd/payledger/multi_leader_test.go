package main

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/internal/netfreeze"
	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/migrations/pgtest"
)

// Two serve instances on one database, the instance that leads the projectors then lost as a
// machine is lost: its connections stay open (no FIN, no RST reaches PostgreSQL) and nothing more
// comes through them. The other instance must take every projector over. Before, the leader
// lock was a session advisory lock on a connection nobody used after taking it, so PostgreSQL
// kept it until TCP keepalive ended the session (7200 s by default): the read models, the
// webhooks fanned out by the receipts projector, receipt.created and subscription charging
// stopped on every instance for over two hours.
func TestMultiServeProjectorsTakenOverFromALostInstance(t *testing.T) {
	direct := pgtest.URL(t)
	u, err := url.Parse(direct)
	if err != nil {
		t.Fatal(err)
	}
	link := netfreeze.New(t, u.Host)
	u.Host = link.Addr
	baseA, outA, stopA := startServeStoppable(t, map[string]string{"DATABASE_URL": u.String(), "EMBEDDED_POSTGRES": "off"})
	// Cleanups run last first: the link is cut (every connection closed) before A is stopped,
	// so that A's shutdown does not wait on a database that never answers.
	t.Cleanup(stopA)
	t.Cleanup(link.Cut)
	projectors := []string{"receipts", "users", "subscriptions", "receipt_created"}
	multiWait(t, "instance A leads every projector", 2*time.Minute, func() bool { return leads(outA.String(), projectors) }, outA.String)

	baseB, outB, stopB := startServeStoppable(t, map[string]string{"DATABASE_URL": direct, "EMBEDDED_POSTGRES": "off"})
	t.Cleanup(stopB)
	// /healthz says which instance runs the one-instance jobs: A the four projections and charging
	// (the development chain has the spend permission manager), B none.
	everyProjection := []string{"receipt.created projection", "receipts projection", "subscription charging", "subscriptions projection", "users projection"}
	if got := healthzLeading(t, baseA); !slices.Equal(got, everyProjection) {
		t.Fatalf("A's /healthz leading %v, want %v", got, everyProjection)
	}
	if got := healthzLeading(t, baseB); len(got) != 0 {
		t.Fatalf("B's /healthz leading %v while A leads, want none", got)
	}

	link.Freeze() // A's machine is gone
	multiWait(t, "instance B leads every projector after A was lost", 3*time.Minute,
		func() bool { return leads(outB.String(), projectors) }, outB.String)
	multiWait(t, "B's /healthz names the projections it took over", time.Minute,
		func() bool { return slices.Equal(healthzLeading(t, baseB), everyProjection) }, outB.String)
}

// healthzLeading is the "leading" list of base's /healthz.
func healthzLeading(t *testing.T, base string) []string {
	t.Helper()
	resp, err := http.Get(base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct{ Leading []string }
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	return body.Leading
}

// multiWait waits until cond holds, failing the test with log's tail after timeout (a bound far
// above the expected, so that a slow machine does not fail it).
func multiWait(t *testing.T, what string, timeout time.Duration, cond func() bool, log func() string) {
	t.Helper()
	if !wait.Poll(timeout, cond) {
		t.Fatalf("waiting for %s: not within %v\n%s", what, timeout, tail(log(), 8000))
	}
}

// leading is the projectors a serve log says it leads ("projector leading").
func leading(log string) map[string]bool {
	out := map[string]bool{}
	for _, l := range strings.Split(log, "\n") {
		var m struct{ Projector, Message string }
		if json.Unmarshal([]byte(l), &m) == nil && m.Message == "projector leading" {
			out[m.Projector] = true
		}
	}
	return out
}

// leads says whether log says it leads every one of names.
func leads(log string, names []string) bool {
	led := leading(log)
	for _, n := range names {
		if !led[n] {
			return false
		}
	}
	return true
}
