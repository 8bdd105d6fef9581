package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/chain"
)

// devchainEnvFile is where the development chain writes its variables and account keys, so that
// `payledger devchain pay <receiptId>` in another shell finds them: $DEVCHAIN_ENV_FILE, else
// payledger-devchain.env in the temporary directory.
func devchainEnvFile() string {
	if f := os.Getenv("DEVCHAIN_ENV_FILE"); f != "" {
		return f
	}
	return filepath.Join(os.TempDir(), "payledger-devchain.env")
}

// writeDevchainEnv writes the chain's variables and its first development account's key
// (DEVCHAIN_ACCOUNT_KEY) as NAME=value lines, readable by the owner only.
func writeDevchainEnv(path string, d *chain.DevChain) error {
	var b strings.Builder
	b.WriteString("# payledger development chain (in memory; these values die with it)\n")
	for _, line := range d.Env() {
		b.WriteString(line + "\n")
	}
	if len(d.Accounts) > 0 {
		fmt.Fprintf(&b, "DEVCHAIN_ACCOUNT_KEY=0x%s\n", d.Accounts[0].KeyHex())
	}
	// os.WriteFile keeps the mode of a file already there: one left readable by others (or
	// another user's, in the shared temporary directory) would hand out the keys.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return err
	}
	if err := f.Truncate(0); err != nil {
		f.Close()
		return err
	}
	if _, err := f.WriteString(b.String()); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// readDevchainEnv reads a file written by writeDevchainEnv; a missing file is an empty map.
func readDevchainEnv(path string) map[string]string {
	out := map[string]string{}
	f, err := os.Open(path)
	if err != nil {
		return out
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		line := strings.TrimSpace(s.Text())
		if k, v, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(line, "#") {
			out[k] = v
		}
	}
	return out
}

const devchainPayReceiptUsage = `usage:
  payledger devchain pay <receiptId> [--token USDC|USDT|ETH] [--base-url http://localhost:8080]
                         [--key HEX] [--amount DECIMAL] [--submit] [--again] [--env-file PATH]
      pays a receipt end to end as a phone wallet does: reads it from the service's public API
      (GET /api/portal/{id}), quotes it in the token (POST /api/portal/{id}/quote), reads the
      payment request (GET /api/portal/{id}/request?token=: the receipt's own deposit address
      and the amount) and sends a plain transfer there from a development account. Nothing is
      submitted: the service finds the transfer on chain. --submit also posts the hash
      (POST /api/portal/{id}/payment) as the page's wallet button does (a hint: it never pays by
      itself). --amount sends another amount than requested (in token units: an underpayment,
      or the rest of one). While a payment to the receipt is being confirmed (the receipt pending
      with nothing confirmed yet, or its deposit address holding more than the service counts:
      an earlier run's transfer) it sends nothing and exits 1, as paying again would pay twice;
      --again sends anyway, and so does --amount. The chain, its tokens and the account default to what the running
      development chain wrote to --env-file (default $DEVCHAIN_ENV_FILE or payledger-devchain.env
      in the temporary directory). --base-url defaults to PUBLIC_BASE_URL (http://localhost:8080);
      --api is its older name, still accepted.
`

// receiptPayFlags are the options of `devchain pay <receiptId>`.
type receiptPayFlags struct {
	receiptID, api, token, key, amount, envFile, rpc string
	submit, again                                    bool
}

func parseReceiptPayFlags(cfg config, args []string) (receiptPayFlags, error) {
	p := receiptPayFlags{receiptID: args[0]}
	fs := flag.NewFlagSet("devchain pay", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	// --base-url as every other subcommand names it; --api is its name before, kept as an alias.
	base := cmp.Or(cfg.PublicBaseURL, "http://localhost:8080")
	fs.StringVar(&p.api, "base-url", base, "the service's base URL")
	fs.StringVar(&p.api, "api", base, "the service's base URL (older name of --base-url)")
	fs.StringVar(&p.token, "token", "USDC", "USDC, USDT (CHAIN_TOKENS) or ETH")
	fs.StringVar(&p.key, "key", "", "payer's private key (default: the development chain's first account)")
	fs.StringVar(&p.amount, "amount", "", "send this amount (token units) instead of the requested one")
	fs.BoolVar(&p.submit, "submit", false, "also submit the hash, as the page's wallet button does")
	fs.BoolVar(&p.again, "again", false, "pay even while a payment to the receipt is being confirmed")
	fs.StringVar(&p.envFile, "env-file", devchainEnvFile(), "the variables the development chain wrote")
	fs.StringVar(&p.rpc, "rpc", "", "JSON-RPC URL (default: the env file's, ETH_RPC_URL, http://127.0.0.1:8545)")
	if err := fs.Parse(args[1:]); err != nil {
		return p, badUsage(err, devchainPayReceiptUsage)
	}
	if fs.NArg() > 0 {
		return p, badUsage(fmt.Sprintf("unexpected arguments %q (flags go after the receipt id)", fs.Args()), devchainPayReceiptUsage)
	}
	// A wrong --base-url or --amount is a wrong command line, found before anything is sent:
	// --amount was read only after the quote, so a typo recorded a quote (the receipt's quotes
	// are limited) and then failed.
	if err := httpURLFlag("--base-url", p.api); err != nil {
		return p, badUsage(err, devchainPayReceiptUsage)
	}
	if p.amount != "" {
		if _, err := baseUnits(p.amount, 0); err != nil {
			return p, badUsage("--"+err.Error(), devchainPayReceiptUsage)
		}
	}
	vars := readDevchainEnv(p.envFile)
	p.rpc = cmp.Or(p.rpc, vars["ETH_RPC_URL"], cfg.EthRPCURL, "http://127.0.0.1:8545")
	p.key = cmp.Or(p.key, vars["DEVCHAIN_ACCOUNT_KEY"])
	p.api = strings.TrimRight(p.api, "/")
	if p.key == "" {
		return p, fmt.Errorf("no --key and no development chain account in %s (is the development chain running?)\n%s", p.envFile, devchainPayReceiptUsage)
	}
	return p, nil
}

// apiCall sends a JSON request to the service and decodes its JSON answer; a status above 299 is
// an error with the envelope's message.
func apiCall(ctx context.Context, method, url, apiKey string, body any, out any) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var headers map[string]string
	if apiKey != "" {
		headers = map[string]string{"Authorization": "Bearer " + apiKey}
	}
	status, raw, err := sendJSON(ctx, http.DefaultClient, method, url, body, headers)
	if err != nil {
		return fmt.Errorf("%s %s: %w (is payledger serve running there? --base-url)", method, url, err)
	}
	if status > 299 {
		return fmt.Errorf("%s %s: %d %s", method, url, status, strings.TrimSpace(string(raw)))
	}
	return json.Unmarshal(raw, out)
}

// findString returns the first string under key anywhere in a decoded JSON value.
func findString(v any, key string) string {
	switch t := v.(type) {
	case map[string]any:
		if s, ok := t[key].(string); ok && s != "" {
			return s
		}
		for _, x := range t {
			if s := findString(x, key); s != "" {
				return s
			}
		}
	case []any:
		for _, x := range t {
			if s := findString(x, key); s != "" {
				return s
			}
		}
	}
	return ""
}

// baseUnits converts a decimal token amount to base units, rounding up: a payment never falls
// short by rounding.
func baseUnits(amount string, decimals uint8) (*big.Int, error) {
	r, ok := new(big.Rat).SetString(amount)
	if !ok || r.Sign() <= 0 {
		return nil, fmt.Errorf("amount %q is not a positive decimal", amount)
	}
	r.Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(decimals)), nil)))
	q, m := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
	if m.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	return q, nil
}

// payRequest is the service's payment request (GET /api/portal/{id}/request?token=).
type payRequest struct {
	Token       string `json:"token"`
	Amount      string `json:"amount"`
	AmountUnits string `json:"amountUnits"`
	// AmountRequired is the whole amount (decimal): less AmountUnits, what is counted received.
	AmountRequired string `json:"amountRequired"`
	Decimals       uint8  `json:"decimals"`
	Recipient      string `json:"recipient"`
	TokenAddress   string `json:"tokenAddress"`
	ChainID        int64  `json:"chainId"`
	ExpiresAt      int64  `json:"expiresAt"`
}

// requestOf quotes the receipt in token (an ETH quote, an EUR rate) and reads its payment request.
func requestOf(ctx context.Context, p receiptPayFlags, token string) (payRequest, error) {
	var q map[string]any
	if err := apiCall(ctx, http.MethodPost, p.api+"/api/portal/"+p.receiptID+"/quote", "", map[string]string{"token": token}, &q); err != nil {
		return payRequest{}, err
	}
	var req payRequest
	if err := apiCall(ctx, http.MethodGet, p.api+"/api/portal/"+p.receiptID+"/request?token="+token, "", nil, &req); err != nil {
		return req, err
	}
	if !common.IsHexAddress(req.Recipient) || (req.TokenAddress != "" && !common.IsHexAddress(req.TokenAddress)) {
		return req, fmt.Errorf("the payment request has no deposit address: %+v", req)
	}
	return req, nil
}

// sendUnits is what to send: the request's amount, or --amount in base units.
func sendUnits(p receiptPayFlags, req payRequest) (*big.Int, error) {
	if p.amount != "" {
		return baseUnits(p.amount, req.Decimals)
	}
	units, ok := new(big.Int).SetString(req.AmountUnits, 10)
	if !ok || units.Sign() <= 0 {
		return nil, fmt.Errorf("the payment request's amountUnits %q is not a positive integer", req.AmountUnits)
	}
	return units, nil
}

// devchainPayReceipt pays receipt p.receiptID by a plain transfer to its deposit address, printing
// each step; --submit also posts the hash.
func devchainPayReceipt(ctx context.Context, cfg config, log zerolog.Logger, args []string, stdout io.Writer) error {
	p, err := parseReceiptPayFlags(cfg, args)
	if err != nil {
		return err
	}
	key, err := crypto.HexToECDSA(strings.TrimPrefix(p.key, "0x"))
	if err != nil {
		return fmt.Errorf("--key: %w", err)
	}
	buyer := crypto.PubkeyToAddress(key.PublicKey)
	// The chain is asked first: with it down, the quote below was recorded on the receipt (each
	// one counts against its quote limits) and only then did the transfer fail.
	if err := chainAnswers(ctx, p.rpc); err != nil {
		return err
	}
	var portal map[string]any
	if err := apiCall(ctx, http.MethodGet, p.api+"/api/portal/"+p.receiptID, "", nil, &portal); err != nil {
		return err
	}
	r, _ := portal["receipt"].(map[string]any)
	fmt.Fprintf(stdout, "receipt %s: %v %v, status %v\n", p.receiptID, r["totalUsd"], r["currency"], r["status"])
	// The requested amount again while a payment is under way pays twice; --amount names its own.
	guard := !p.again && p.amount == ""
	if err := paymentUnderWay(p, r); guard && err != nil {
		return err
	}
	token := strings.ToUpper(p.token)
	req, err := requestOf(ctx, p, token)
	if err != nil {
		return err
	}
	units, err := payable(ctx, p, req, guard)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "request: %s %s = %s base units, to the deposit address %s\n", req.Amount, token, req.AmountUnits, req.Recipient)
	tr := transfer{key: key, to: common.HexToAddress(req.Recipient), amount: units}
	if req.TokenAddress != "" {
		tr.token = common.HexToAddress(req.TokenAddress)
	}
	hash, err := sendTransfer(ctx, log, p.rpc, tr, true, io.Discard)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "sent %s base units in %s from %s (mined, a plain transfer)\n", units, hash.Hex(), buyer.Hex())
	if p.submit {
		var sub map[string]any
		if err := apiCall(ctx, http.MethodPost, p.api+"/api/portal/"+p.receiptID+"/payment", "",
			map[string]string{"token": token, "transactionHash": hash.Hex(), "buyerWallet": buyer.Hex()}, &sub); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "submitted the hash as a hint: the receipt is %v\n", cmp.Or(findString(sub, "status"), "pending"))
	}
	fmt.Fprintf(stdout, "the service finds the transfer on chain: pending when seen, paid once it is %d blocks deep, then swept and reconciled\n",
		max(cfg.ChainConfirmations, 1))
	fmt.Fprintf(stdout, "watch it: curl %s/api/portal/%s\n", p.api, p.receiptID)
	return nil
}

// chainAnswers is nil when the node at rpcURL answers its chain id (within 10 s), else an error
// saying nothing was sent to the service.
func chainAnswers(ctx context.Context, rpcURL string) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	ec, err := ethclient.DialContext(ctx, rpcURL)
	if err == nil {
		defer ec.Close()
		_, err = ec.ChainID(ctx)
	}
	if err != nil {
		return fmt.Errorf("the chain at %s does not answer (is the development chain running? --rpc, --env-file): %w; nothing was sent to the service", rpcURL, err)
	}
	return nil
}
