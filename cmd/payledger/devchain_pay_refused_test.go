package main

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestDevchainPayWritesNothingItCannotFinish: `devchain pay <receiptId>` with the chain down, a
// wrong --amount or a --base-url without http(s) sends no quote to the service (a quote is
// recorded on the receipt and counts against its quote limits): the chain is asked first
// (exit 1, saying nothing was sent) and the flags are a wrong command line (exit 2). The quote
// was posted, then the transfer or the amount failed.
func TestDevchainPayWritesNothingItCannotFinish(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var calls []string
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls = append(calls, r.Method+" "+r.URL.Path)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch {
		case strings.HasSuffix(r.URL.Path, "/quote"):
			_, _ = w.Write([]byte(`{"token":"USDC","amount":"12.31"}`))
		case strings.HasSuffix(r.URL.Path, "/request"):
			_, _ = w.Write([]byte(`{"token":"USDC","amount":"12.31","amountUnits":"12310000","decimals":6,` +
				`"recipient":"0x00000000000000000000000000000000000000d1","tokenAddress":"0x00000000000000000000000000000000000000e1"}`))
		default:
			_, _ = w.Write([]byte(`{"receipt":{"totalUsd":12.31,"currency":"USD","status":"generated"}}`))
		}
	}))
	defer svc.Close()
	down, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rpcURL := "http://" + down.Addr().String()
	_ = down.Close() // nothing answers there now
	envFile := filepath.Join(t.TempDir(), "devchain.env")
	key := "0x" + strings.Repeat("11", 32)
	if err := os.WriteFile(envFile, []byte("ETH_RPC_URL="+rpcURL+"\nDEVCHAIN_ACCOUNT_KEY="+key+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	vars := env(map[string]string{"DEV_DATA_DIR": t.TempDir(), "DATABASE_URL": "postgres://nobody@127.0.0.1:1/none"})
	for _, tc := range []struct {
		name string
		args []string
		code int
		says string
	}{
		{"chain down", nil, 1, "nothing was sent to the service"},
		{"amount not a number", []string{"--amount", "five"}, 2, `--amount "five" is not a positive decimal`},
		{"amount zero", []string{"--amount", "0"}, 2, "is not a positive decimal"},
		{"base-url without scheme", []string{"--base-url", strings.TrimPrefix(svc.URL, "http://")}, 2, "must be an http(s) URL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			args := append([]string{"devchain", "pay", "rcpt_1", "--base-url", svc.URL, "--env-file", envFile}, tc.args...)
			var out, errOut bytes.Buffer
			code := run(ctx, args, vars, &out, &errOut)
			if code != tc.code || !strings.Contains(errOut.String(), tc.says) {
				t.Fatalf("exit %d (want %d), stdout %q, stderr %q (want %q)", code, tc.code, out.String(), errOut.String(), tc.says)
			}
			mu.Lock()
			defer mu.Unlock()
			for _, c := range calls {
				if strings.HasPrefix(c, http.MethodPost) {
					t.Fatalf("the service was sent %s; calls %q", c, calls)
				}
			}
		})
	}
}
