package main

import (
	"os"
	"path/filepath"
	"testing"
)

// The tests' development chains write their variables to a file of the run's own, never to the
// developer's default (stop 68): `make test` beside a running `make run` overwrote and then
// removed `payledger-devchain.env`, and `devchain pay` in the developer's shell found no chain.
func TestTestsKeepOffTheDevelopersEnvFile(t *testing.T) {
	got := devchainEnvFile()
	if got == filepath.Join(os.TempDir(), "payledger-devchain.env") {
		t.Fatalf("the tests write the developer's env file %s", got)
	}
}
