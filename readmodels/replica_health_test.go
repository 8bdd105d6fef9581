package readmodels

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// Each probe reports its outcome, for serve's worker health (/healthz): a replica that is down or
// behind is an error saying why, not only a log line when it changes (stop 61: the probe ran as a
// watched loop, and /healthz only noticed if the loop itself stopped).
func TestReplicaProbeReportsWhyTheReplicaIsNotUsed(t *testing.T) {
	t.Parallel()
	f := newFakeStandby(t)
	r := NewReplicaReads(f.primary, f.replica, time.Now, zerolog.Nop())
	ctx := context.Background()
	if ok, err := r.Probe(ctx); ok || err != nil {
		t.Fatalf("first probe (nothing to compare with): %v %v; want no progress and no error", ok, err)
	}
	if ok, err := r.Probe(ctx); !ok || err != nil || !r.Healthy() {
		t.Fatalf("a replica that keeps up: %v %v", ok, err)
	}
	for mode, why := range map[string]string{"behind": "behind", "down": "the standby is down"} {
		f.set(mode)
		_, _ = r.Probe(ctx) // compares with the position before the primary wrote more
		if ok, err := r.Probe(ctx); ok || err == nil || !strings.Contains(err.Error(), why) || r.Healthy() {
			t.Fatalf("replica %s: %v %v; want an error saying %q", mode, ok, err, why)
		}
		f.set("current")
		if _, err := r.Probe(ctx); err != nil {
			t.Fatalf("caught up again: %v", err)
		}
	}
}
