package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/payledger/payledger/chain"
)

// TestDevchainEnvFileIsPrivateEvenWhenItExisted: the file the development chain writes its
// operator and account keys to (in the shared temporary directory by default) is the owner's
// alone after every write; os.WriteFile kept the mode of a file already there, so one left
// readable by others stayed readable, keys included.
func TestDevchainEnvFileIsPrivateEvenWhenItExisted(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "payledger-devchain.env")
	if err := os.WriteFile(path, []byte("stale\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil { // whatever the umask
		t.Fatal(err)
	}
	op, _ := crypto.GenerateKey()
	acct, _ := crypto.GenerateKey()
	d := &chain.DevChain{URL: "http://127.0.0.1:8545", ChainID: chain.DevChainID, Operator: chain.DevAccount{Key: op},
		Accounts: []chain.DevAccount{{Key: acct}}}
	if err := writeDevchainEnv(path, d); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %o after writing the keys, want 600", st.Mode().Perm())
	}
	vars := readDevchainEnv(path)
	if vars["DEVCHAIN_ACCOUNT_KEY"] != "0x"+(chain.DevAccount{Key: acct}).KeyHex() || vars["ETH_RPC_URL"] != d.URL {
		t.Errorf("read back %v", vars)
	}
	if b, _ := os.ReadFile(path); strings.Contains(string(b), "stale") {
		t.Errorf("the old content is still there:\n%s", b)
	}
}
