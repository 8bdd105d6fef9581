package journal

import (
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

// A new journal's name in its folder was never synced (only each entry's bytes were), so a crash
// soon after the first degraded order could lose the whole file, acknowledged entries and all.
// Open now syncs the folder, and the folder's own, when it creates the file; a drain's rename
// syncs the folder as before. Not parallel: it replaces syncDir while no other test runs.
func TestANewJournalIsSyncedIntoItsFolder(t *testing.T) {
	var mu sync.Mutex
	var synced []string
	saved := syncDir
	syncDir = func(dir string) error {
		mu.Lock()
		synced = append(synced, dir)
		mu.Unlock()
		return saved(dir)
	}
	defer func() { syncDir = saved }()
	root := t.TempDir()
	path := filepath.Join(root, "data", "journal.jsonl")
	j, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(synced, filepath.Join(root, "data")) || !slices.Contains(synced, root) {
		t.Fatalf("folders synced when the journal was created: %q", synced)
	}
	_ = j.Close()
	synced = nil
	if j, err = Open(path); err != nil { // exists: nothing to sync
		t.Fatal(err)
	}
	defer j.Close()
	if len(synced) != 0 {
		t.Fatalf("folders synced on opening an existing journal: %q", synced)
	}
}
