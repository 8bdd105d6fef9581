package main

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"
)

// TestDevMerchantKeepsItsKeyWhenTheServiceIsBusy: `dev merchant` run again checks the API key it
// kept; a service that answers that check 429 (the key's request limit spent) says nothing about
// the key. Run again, the command waits what the 429 asks and reuses the key; given no time to
// wait, it fails saying the key is left as it is, the file unchanged. It took any answer but 2xx
// for a refused key: it created a new key and wrote it over the kept one, the old key still live.
func TestDevMerchantKeepsItsKeyWhenTheServiceIsBusy(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".data")
	vars := map[string]string{"DEV_DATA_DIR": dir, "JOURNAL_PATH": filepath.Join(dir, "journal.jsonl"), "DEVCHAIN": "off",
		"RATE_LIMIT_PER_MINUTE": "30"} // a request every 2 s once the burst of 30 is spent
	base, _ := startServe(t, vars)
	first := runDevMerchant(t, vars, base)
	envFile := filepath.Join(dir, devMerchantEnvFile)
	kept, err := os.ReadFile(envFile)
	if err != nil {
		t.Fatal(err)
	}

	spendKey(t, base, first.key)
	m := &devMerchant{base: base, dir: dir, log: zerolog.Nop(), retryFor: 1} // no time to wait
	err = m.run(context.Background(), "Dev shop", &strings.Builder{})
	if err == nil || !strings.Contains(err.Error(), "429") || !strings.Contains(err.Error(), "it is left as it is") {
		t.Fatalf("a limited key check: %v; want a failure saying the kept key is left as it is", err)
	}
	if now, _ := os.ReadFile(envFile); string(now) != string(kept) {
		t.Fatalf("the kept key was replaced on a 429:\n%s\nwas:\n%s", now, kept)
	}

	spendKey(t, base, first.key)
	second := runDevMerchant(t, vars, base)
	if second.state != "reused" || second.key != first.key {
		t.Fatalf("after a 429 the run made key %s (%s); want the kept %s reused", second.key, second.state, first.key)
	}
}

// spendKey sends requests with key until the service answers 429.
func spendKey(t *testing.T, base, key string) {
	t.Helper()
	for range 100 {
		req, _ := http.NewRequest(http.MethodGet, base+"/api/status/ping", nil)
		req.Header.Set("Ocp-Apim-Subscription-Key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusTooManyRequests {
			return
		}
	}
	t.Fatal("100 requests and no 429")
}
