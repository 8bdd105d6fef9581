package transport

import (
	"context"
	"testing"
	"time"
)

// The stall watch: an issue journaled after its deadline shortens the next ones' bound until an
// issue is stored in time, or stalledFor passes; a refused connection (journaled before the
// deadline) and a failure say nothing about a hang.
func TestStallWatch(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_700_000_000, 0)
	w := &stallWatch{now: func() time.Time { return now }}
	expired, cancel := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancel()
	live := context.Background()
	steps := []struct {
		name     string
		ctx      context.Context
		degraded bool
		advance  time.Duration
		want     time.Duration
	}{
		{"healthy", live, false, 0, issueWait},
		{"journaled before its deadline (refused connection)", live, true, 0, issueWait},
		{"journaled after its deadline (hung server)", expired, true, 0, stalledIssueWait},
		{"still stalled a while later", live, true, stalledFor - time.Second, stalledIssueWait},
		{"another deadline extends it", expired, true, 0, stalledIssueWait},
		{"stalledFor after the last deadline", live, true, stalledFor, issueWait},
		{"stalled again", expired, true, 0, stalledIssueWait},
		{"an issue stored in time ends it", live, false, 0, issueWait},
	}
	for _, s := range steps {
		now = now.Add(s.advance)
		w.observe(s.ctx, s.degraded)
		if got := w.wait(); got != s.want {
			t.Errorf("%s: bound %v, want %v", s.name, got, s.want)
		}
	}
}
