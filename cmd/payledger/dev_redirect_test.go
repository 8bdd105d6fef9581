package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
)

// TestDevMerchantFollowsNoRedirect: `payledger dev merchant` sends the API key it kept (from an
// earlier run, against any service) and the session's CSRF token in headers of its own, which Go's
// HTTP client forwards on a redirect to any other host: a --base-url that redirected handed the
// kept key to that host. The command now follows no redirect (the service answers it directly).
func TestDevMerchantFollowsNoRedirect(t *testing.T) {
	t.Parallel()
	const keptKey = "plk_kept_dev_key_secret"
	dir := t.TempDir()
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	wallet := strings.ToLower(crypto.PubkeyToAddress(key.PublicKey).Hex())
	_ = os.WriteFile(filepath.Join(dir, devMerchantKeyFile), []byte(hex.EncodeToString(crypto.FromECDSA(key))+"\n"), 0o600)
	_ = os.WriteFile(filepath.Join(dir, devMerchantEnvFile), []byte("WALLET="+wallet+"\nPAYLEDGER_API_KEY="+keptKey+"\n"), 0o600)

	var mu sync.Mutex
	var elsewhere []string // what reached the other host
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		elsewhere = append(elsewhere, fmt.Sprint(r.URL.Path, r.Header))
		mu.Unlock()
		_, _ = w.Write([]byte(`{}`))
	}))
	defer other.Close()
	service := httptest.NewServer(fakeDevService(wallet, other.URL))
	defer service.Close()

	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"dev", "merchant", "--base-url", service.URL},
		env(map[string]string{"DEV_DATA_DIR": dir, "DATABASE_URL": "postgres://nobody@127.0.0.1:1/none"}), &out, &errOut)
	mu.Lock()
	defer mu.Unlock()
	for _, req := range elsewhere {
		if strings.Contains(req, keptKey) || strings.Contains(req, "csrf-of-the-session") {
			t.Fatalf("a redirect handed a secret to another host (exit %d): %s", code, req)
		}
	}
	if code != 0 || !strings.Contains(out.String(), "plk_new_key") {
		t.Fatalf("exit %d: %s %s", code, out.String(), errOut.String())
	}
}

// fakeDevService answers what `dev merchant` asks, and redirects its key check to other.
func fakeDevService(wallet, other string) http.Handler {
	mux := http.NewServeMux()
	answer := func(path, body string, status int) {
		mux.HandleFunc(path, func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(status)
			_, _ = w.Write([]byte(body))
		})
	}
	answer("/healthz", `{"status":"ok"}`, 200)
	answer("/api/auth/nonce", `{"nonce":"n","typedData":{"types":{"EIP712Domain":[{"name":"name","type":"string"}],`+
		`"Login":[{"name":"wallet","type":"address"}]},"primaryType":"Login","domain":{"name":"payledger"},"message":{"wallet":"`+wallet+`"}}}`, 200)
	answer("/api/auth/login", `{"csrfToken":"csrf-of-the-session"}`, 200)
	answer("/api/split/deploy", `{"split":{"address":"`+wallet+`"}}`, 200)
	answer("/api/shop/config", `{}`, 200)
	answer("/api/admin/keys", `{"key":"plk_new_key"}`, 201)
	answer("/api/inventory", `{}`, 200)
	answer("/api/auth/dev-link", `{"url":"x"}`, 200)
	mux.HandleFunc("/api/status/ping", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other+r.URL.Path, http.StatusTemporaryRedirect)
	})
	return mux
}
