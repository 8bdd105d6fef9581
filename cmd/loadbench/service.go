package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
	"github.com/jackc/pgx/v5"

	"github.com/payledger/payledger/chain"
)

// The service under measurement: its fresh database, its binary and process, and the merchant
// (login, split, key, inventory) whose key the order phases use.

func freshDatabase(ctx context.Context, base string) (string, func(), error) {
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "payledger_bench_" + hex.EncodeToString(b[:])
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		return "", nil, err
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", nil, err
	}
	u, _ := url.Parse(base)
	u.Path = "/" + name
	drop := func() {
		c, err := pgx.Connect(context.Background(), base)
		if err == nil {
			_, _ = c.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
			c.Close(context.Background())
		}
	}
	return u.String(), drop, nil
}

// payledgerBinary is prebuilt, or else ./cmd/payledger built into dir.
func payledgerBinary(prebuilt, dir string) (string, error) {
	bin := prebuilt
	if bin == "" {
		bin = filepath.Join(dir, "payledger")
		if err := buildPayledger("", bin); err != nil {
			return "", err
		}
	}
	return bin, nil
}

// buildPayledger builds the ./cmd/payledger of the source tree at src (the working directory
// when empty) into bin.
func buildPayledger(src, bin string) error {
	c := exec.Command("go", "build", "-o", bin, "./cmd/payledger")
	c.Dir = src
	if out, err := c.CombinedOutput(); err != nil {
		return fmt.Errorf("build: %v: %s", err, out)
	}
	return nil
}

// service is a running `payledger serve`.
type service struct {
	addr    string
	cmd     *exec.Cmd
	devNull *os.File
}

// startService starts `bin serve` on dbURL at a free address: no chain, rate limits out of reach,
// admin's wallet an administrator. It does not wait for the service to answer (waitUp).
func startService(bin, dbURL string, admin *ecdsa.PrivateKey) (*service, error) {
	addr := freeAddr()
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), "DATABASE_URL="+dbURL, "HTTP_ADDR="+addr, "EMBEDDED_POSTGRES=off", "DEVCHAIN=off", // the order path, no chain
		"PLATFORM_RECIPIENT=0x"+strings.Repeat("b", 40), "RATE_LIMIT_PER_MINUTE=100000000", "RATE_LIMIT_PUBLIC_PER_MINUTE=100000000",
		"ADMIN_WALLETS="+crypto.PubkeyToAddress(admin.PublicKey).Hex(), "PPROF_ADDR="+os.Getenv("LOADBENCH_PPROF_ADDR"))
	// The service's logs go to /dev/null itself: io.Discard would put a pipe and a copying
	// goroutine in this process, on the cores the service is being measured on.
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = devNull, devNull
	if err := cmd.Start(); err != nil {
		devNull.Close()
		return nil, err
	}
	return &service{addr: addr, cmd: cmd, devNull: devNull}, nil
}

func (s *service) pid() int { return s.cmd.Process.Pid }

// stop interrupts the service and waits for it to exit.
func (s *service) stop() {
	_ = s.cmd.Process.Signal(os.Interrupt)
	_ = s.cmd.Wait()
	s.devNull.Close()
}

func freeAddr() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func waitUp(base string) error {
	for i := 0; i < 300; i++ {
		if resp, err := http.Get(base + "/healthz"); err == nil {
			resp.Body.Close()
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("service did not start")
}

func call(c *http.Client, method, url, key, body string) ([]byte, error) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, url, rd)
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Ocp-Apim-Subscription-Key", key)
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		return b, fmt.Errorf("%s %s: %d %s", method, url, resp.StatusCode, b)
	}
	return b, nil
}

// signUp logs in as a merchant, configures its split, adds three items and returns a key.
func signUp(c *http.Client, base, bin, dbURL string, key *ecdsa.PrivateKey) (string, error) {
	wallet := strings.ToLower(crypto.PubkeyToAddress(key.PublicKey).Hex())
	cookies, err := login(c, base, wallet, key)
	if err != nil {
		return "", err
	}
	if err := deploySplit(c, base, cookies, wallet); err != nil {
		return "", err
	}
	apiKey, err := createKey(bin, dbURL, wallet, "orders:create,receipts:read,inventory:write")
	if err != nil {
		return "", err
	}
	for _, it := range []string{
		`{"sku":"latte","name":"Latte","priceUsd":4.5,"taxable":true}`,
		`{"sku":"beans","name":"Beans","priceUsd":18}`,
		`{"sku":"mug","name":"Mug","priceUsd":12,"taxable":true}`,
	} {
		if _, err := call(c, http.MethodPost, base+"/api/inventory", apiKey, it); err != nil {
			return "", err
		}
	}
	return apiKey, nil
}

// login signs the EIP-712 login nonce for wallet with key and returns the session's cookies.
func login(c *http.Client, base, wallet string, key *ecdsa.PrivateKey) ([]*http.Cookie, error) {
	body, err := call(c, http.MethodPost, base+"/api/auth/nonce", "", `{"wallet":"`+wallet+`"}`)
	if err != nil {
		return nil, err
	}
	var nonce struct {
		TypedData apitypes.TypedData `json:"typedData"`
	}
	if err := json.Unmarshal(body, &nonce); err != nil {
		return nil, err
	}
	sig, err := chain.SignTypedData(nonce.TypedData, key)
	if err != nil {
		return nil, err
	}
	req, _ := http.NewRequest(http.MethodPost, base+"/api/auth/login", strings.NewReader(`{"wallet":"`+wallet+`","signature":"`+sig+`"}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	return resp.Cookies(), nil
}

// deploySplit records the merchant's split contract in the session of cookies: an address of its
// own (a split contract belongs to one merchant).
func deploySplit(c *http.Client, base string, cookies []*http.Cookie, wallet string) error {
	var csrf string
	for _, ck := range cookies {
		if ck.Name == "cb_csrf" {
			csrf = ck.Value
		}
	}
	split, _ := http.NewRequest(http.MethodPost, base+"/api/split/deploy", strings.NewReader(`{"splitAddress":"0xc`+wallet[3:]+`"}`))
	split.Header.Set("Content-Type", "application/json")
	split.Header.Set("x-csrf-token", csrf)
	for _, ck := range cookies {
		split.AddCookie(ck)
	}
	if resp, err := c.Do(split); err != nil || resp.StatusCode != 200 {
		return fmt.Errorf("split: %v %v", err, resp)
	}
	return nil
}

// createKey creates an API key for wallet with scopes through `bin keys create`, and returns it.
func createKey(bin, dbURL, wallet, scopes string) (string, error) {
	keys := exec.Command(bin, "keys", "create", "--wallet", wallet, "--scopes", scopes)
	keys.Env = append(os.Environ(), "DATABASE_URL="+dbURL, "EMBEDDED_POSTGRES=off")
	out, err := keys.Output()
	if err != nil {
		return "", fmt.Errorf("keys create: %w", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return lines[len(lines)-1], nil
}
