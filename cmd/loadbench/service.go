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
	"slices"
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
	bin     string
	env     []string // the database and the data folder, shared with `keys create`
	dir     string   // the service's own data folder (DEV_DATA_DIR, JOURNAL_PATH), removed by stop
	cmd     *exec.Cmd
	devNull *os.File
	exited  chan struct{} // closed when the process has ended; then waitErr is its end
	waitErr error
}

// startService starts `bin serve` on dbURL at a free address: no chain, rate limits out of reach,
// admin's wallet an administrator. It does not wait for the service to answer (waitUp).
//
// Each service has a data folder of its own: the default (.data in the working directory) is the
// checkout's, which `make run` uses too. There a second serve cannot take the journal's lock (the
// A/B's two services side by side, or loadbench beside `make run`), and the journal loadbench's
// service left would be replayed by the developer's next `make run` into its own database.
func startService(bin, dbURL string, admin *ecdsa.PrivateKey) (*service, error) {
	dir, err := os.MkdirTemp("", "loadbench-serve-")
	if err != nil {
		return nil, err
	}
	s := &service{addr: freeAddr(), bin: bin, dir: dir, exited: make(chan struct{})}
	s.env = append(os.Environ(), "DATABASE_URL="+dbURL, "EMBEDDED_POSTGRES=off",
		"DEV_DATA_DIR="+dir, "JOURNAL_PATH="+filepath.Join(dir, "journal.jsonl"))
	s.cmd = exec.Command(bin, "serve")
	s.cmd.Env = append(slices.Clip(s.env), "HTTP_ADDR="+s.addr, "DEVCHAIN=off", // the order path, no chain
		"PLATFORM_RECIPIENT=0x"+strings.Repeat("b", 40), "RATE_LIMIT_PER_MINUTE=100000000", "RATE_LIMIT_PUBLIC_PER_MINUTE=100000000",
		"ADMIN_WALLETS="+crypto.PubkeyToAddress(admin.PublicKey).Hex(), "PPROF_ADDR="+os.Getenv("LOADBENCH_PPROF_ADDR"))
	// The service's logs go to /dev/null itself: io.Discard would put a pipe and a copying
	// goroutine in this process, on the cores the service is being measured on. A service that
	// ends before it answers is started again to say why (whyEnded).
	if s.devNull, err = os.OpenFile(os.DevNull, os.O_WRONLY, 0); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	s.cmd.Stdout, s.cmd.Stderr = s.devNull, s.devNull
	if err := s.cmd.Start(); err != nil {
		s.devNull.Close()
		_ = os.RemoveAll(dir)
		return nil, err
	}
	go func() { s.waitErr = s.cmd.Wait(); close(s.exited) }()
	return s, nil
}

func (s *service) pid() int { return s.cmd.Process.Pid }

// stop interrupts the service, waits for it to exit and removes its data folder.
func (s *service) stop() {
	_ = s.cmd.Process.Signal(os.Interrupt)
	<-s.exited
	s.devNull.Close()
	_ = os.RemoveAll(s.dir)
}

// waitUp waits until the service answers /healthz, for up to 30 s; a service that ends before
// that is reported with its own last words (whyEnded).
func (s *service) waitUp() error {
	for range 300 {
		select {
		case <-s.exited:
			return fmt.Errorf("service ended before it answered (%v): %s", s.waitErr, s.whyEnded())
		default:
		}
		if resp, err := http.Get("http://" + s.addr + "/healthz"); err == nil {
			resp.Body.Close()
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("service did not answer /healthz at %s within 30 s", s.addr)
}

// whyEnded starts the service again, this time keeping what it prints, and returns its last line
// (serve logs its failure last); one that starts this time is stopped after 20 s.
func (s *service) whyEnded() string {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	again := exec.CommandContext(ctx, s.bin, "serve")
	again.Env = s.cmd.Env
	out, _ := again.CombinedOutput()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return lines[len(lines)-1]
}

func freeAddr() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer l.Close()
	return l.Addr().String()
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
func signUp(c *http.Client, base string, svc *service, key *ecdsa.PrivateKey) (string, error) {
	wallet := strings.ToLower(crypto.PubkeyToAddress(key.PublicKey).Hex())
	cookies, err := login(c, base, wallet, key)
	if err != nil {
		return "", err
	}
	if err := deploySplit(c, base, cookies, wallet); err != nil {
		return "", err
	}
	apiKey, err := svc.createKey(wallet, "orders:create,receipts:read,inventory:write")
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

// createKey creates an API key for wallet with scopes through the service binary's `keys
// create`, with the service's database and data folder (its development secrets), and returns it.
func (s *service) createKey(wallet, scopes string) (string, error) {
	keys := exec.Command(s.bin, "keys", "create", "--wallet", wallet, "--scopes", scopes)
	keys.Env = s.env
	out, err := keys.Output()
	if err != nil {
		return "", fmt.Errorf("keys create: %w", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return lines[len(lines)-1], nil
}
