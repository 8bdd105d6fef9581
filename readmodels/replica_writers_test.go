package readmodels

import (
	"fmt"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// When the memory of writers is full it is emptied, and a caller who wrote just before must
// still count as a writer: its next read waits for the replica's replay or reads the primary
// (stop 61: the memory kept every writer ever seen until 100,000 and then forgot them all,
// those of the last seconds too, whose reads then went to the replica without waiting; on a busy
// instance that happened every so often without any flood).
func TestReplicaReadsAFullMemoryForgetsNoRecentWriter(t *testing.T) {
	t.Parallel()
	now := time.UnixMilli(1_795_000_000_000)
	r := NewReplicaReads(nil, nil, func() time.Time { return now }, zerolog.Nop())
	for i := range maxWriters - 1 { // writers of long ago
		r.Wrote(fmt.Sprintf("ip:old-%d", i))
	}
	now = now.Add(time.Minute)
	r.Wrote("wallet:0xab") // a merchant writes
	now = now.Add(time.Second)
	for i := range 10 { // others write: the memory is full
		r.Wrote(fmt.Sprintf("ip:new-%d", i))
	}
	now = now.Add(time.Second)
	if !r.wroteRecently([]string{"wallet:0xab"}) {
		t.Fatal("a merchant that wrote 1 s before the memory filled up does not count as a writer: its read may miss its write")
	}
	if n := len(r.writers); n > maxWriters {
		t.Fatalf("%d writers remembered, at most %d", n, maxWriters)
	}
	// A flood of recent writers: the memory cannot keep them all, so every caller counts as a
	// writer until the flood's writes are older than recentWrite.
	for i := range maxWriters + 1 {
		r.Wrote(fmt.Sprintf("ip:flood-%d", i))
	}
	if !r.wroteRecently([]string{"ip:flood-1"}) || !r.wroteRecently([]string{"wallet:0xab"}) {
		t.Fatal("after a flood emptied the memory, a recent writer does not count as one")
	}
	now = now.Add(recentWrite + time.Millisecond)
	if r.wroteRecently([]string{"ip:someone-else"}) {
		t.Fatal("a caller that never wrote counts as a writer long after the flood")
	}
	if n := len(r.writers); n > maxWriters {
		t.Fatalf("%d writers remembered, at most %d", n, maxWriters)
	}
}
