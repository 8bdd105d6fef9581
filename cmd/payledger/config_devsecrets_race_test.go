package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestDevSecretsAddedTogetherAgree: processes that add the same missing secret to an existing
// development secrets file at once (serve and `dev merchant` started together after switching to
// gateway mode, or after one line of the file was deleted) must all use the value the file keeps.
// The first writer won only while the file did not exist (os.Link); with a file there, each read
// it, renamed its own merge over it, and kept using its own value, so the last rename's value was
// kept and the others disagreed with it (stop 67).
func TestDevSecretsAddedTogetherAgree(t *testing.T) {
	t.Parallel()
	for round := range 20 {
		path := filepath.Join(t.TempDir(), devSecretsFile)
		if err := os.WriteFile(path, []byte("JWT_SECRET=kept\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		const writers = 8
		got := make([]string, writers)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				all, err := writeDevSecrets(path, map[string]string{"EDGE_SECRET": fmt.Sprintf("edge-%d", i)})
				if err != nil {
					t.Error(err)
					return
				}
				got[i] = all["EDGE_SECRET"]
			}()
		}
		close(start)
		wg.Wait()
		kept, err := readDevSecrets(path)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range got {
			if v != kept["EDGE_SECRET"] {
				t.Fatalf("round %d: writer %d uses EDGE_SECRET %q, the file keeps %q", round, i, v, kept["EDGE_SECRET"])
			}
		}
		if kept["JWT_SECRET"] != "kept" {
			t.Fatalf("round %d: the file lost JWT_SECRET: %v", round, kept)
		}
	}
}
