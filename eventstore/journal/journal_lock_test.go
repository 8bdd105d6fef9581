package journal

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Two processes given one JOURNAL_PATH used to share the file: the second one's Open cut what
// it took for a torn tail (an entry the first was writing), and both drained and rewrote it. The
// journal is now locked from Open to Close; a second Open is refused naming JOURNAL_PATH, and
// Close lets the next one in (a restart).
func TestOpenRefusesAJournalInUse(t *testing.T) {
	t.Parallel()
	j, path := openWith(t, "rcpt-1")
	other, err := Open(path)
	if !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), "JOURNAL_PATH") || !strings.Contains(err.Error(), path) {
		t.Fatalf("a second Open of a journal in use: %v, %v", other, err)
	}
	if p, err := j.Pending(); err != nil || len(p) != 1 {
		t.Fatalf("the first journal after the refused Open: %d entries, %v", len(p), err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if err := j.Append(entry("rcpt-2")); err == nil {
		t.Fatal("a closed journal took an append (another process may hold it now)")
	}
	if _, err := j.Drain(context.Background(), func(context.Context, Entry) error { return nil }); err == nil {
		t.Fatal("a closed journal was drained")
	}
	again, err := Open(path) // the lock file stays on disk and does not block
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if p, err := again.Pending(); err != nil || len(p) != 1 || p[0].Stream != "rcpt-1" {
		t.Fatalf("after a restart: %+v, %v", p, err)
	}
}

// A process that dies holding the journal (kill -9) leaves its lock file behind; the lock went
// with the process, so the restart opens the journal.
func TestALockLeftByAKilledProcessDoesNotBlock(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	cmd := exec.Command(os.Args[0], "-test.run=^TestJournalLockHolder$")
	cmd.Env = append(os.Environ(), "JOURNAL_LOCK_HOLDER="+path)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "locked\n" {
		t.Fatalf("the holder: %q, %v", line, err)
	}
	if _, err := Open(path); !errors.Is(err, ErrInUse) {
		t.Fatalf("Open while another process holds the journal: %v", err)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if _, err := os.Stat(path + ".lock"); err != nil {
		t.Fatalf("the lock file: %v", err)
	}
	j, err := Open(path)
	if err != nil {
		t.Fatalf("Open after the holder was killed: %v", err)
	}
	_ = j.Close()
}

// TestJournalLockHolder is the other process of TestALockLeftByAKilledProcessDoesNotBlock: it
// opens the journal, says so, and waits to be killed.
func TestJournalLockHolder(t *testing.T) {
	path := os.Getenv("JOURNAL_LOCK_HOLDER")
	if path == "" {
		t.Skip("run by TestALockLeftByAKilledProcessDoesNotBlock")
	}
	if _, err := Open(path); err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("locked\n")
	select {}
}
