package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
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
	return os.WriteFile(path, []byte(b.String()), 0o600)
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
  payledger devchain pay <receiptId> [--token USDC|USDT|ETH] [--api http://localhost:8080]
                         [--key HEX] [--split 0xADDRESS] [--api-key plk_...] [--env-file PATH]
      pays a receipt end to end: reads it from the service's public API (GET /api/portal/{id}),
      quotes it in the token (POST /api/portal/{id}/quote), sends the transfer to the merchant's
      split from a development account, and submits the hash (POST /api/portal/{id}/payment).
      The chain, its tokens and the account default to what the running development chain wrote
      to --env-file (default $DEVCHAIN_ENV_FILE or payledger-devchain.env in the temporary
      directory); the split address is the page's, else --split, else GET /api/split/deploy
      with --api-key (scope split:read of the merchant; default $PAYLEDGER_API_KEY, else the
      key ` + "`payledger dev merchant`" + ` kept in .data/dev-merchant.env)
`

// receiptPayFlags are the options of `devchain pay <receiptId>`.
type receiptPayFlags struct {
	receiptID, api, token, key, split, apiKey, envFile, rpc, tokens string
}

func parseReceiptPayFlags(cfg config, args []string) (receiptPayFlags, error) {
	p := receiptPayFlags{receiptID: args[0]}
	fs := flag.NewFlagSet("devchain pay", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&p.api, "api", "http://localhost:8080", "the service's base URL")
	fs.StringVar(&p.token, "token", "USDC", "USDC, USDT (CHAIN_TOKENS) or ETH")
	fs.StringVar(&p.key, "key", "", "payer's private key (default: the development chain's first account)")
	fs.StringVar(&p.split, "split", "", "the merchant's split address, when the page does not show it")
	fs.StringVar(&p.apiKey, "api-key", os.Getenv("PAYLEDGER_API_KEY"), "a split:read key of the merchant, to read its split")
	fs.StringVar(&p.envFile, "env-file", devchainEnvFile(), "the variables the development chain wrote")
	fs.StringVar(&p.rpc, "rpc", "", "JSON-RPC URL (default: the env file's, ETH_RPC_URL, http://127.0.0.1:8545)")
	fs.StringVar(&p.tokens, "tokens", "", "SYMBOL=0xaddress:decimals,... (default: the env file's, CHAIN_TOKENS)")
	if err := fs.Parse(args[1:]); err != nil {
		return p, badUsage(err, devchainPayReceiptUsage)
	}
	vars := readDevchainEnv(p.envFile)
	p.rpc = cmp.Or(p.rpc, vars["ETH_RPC_URL"], cfg.EthRPCURL, "http://127.0.0.1:8545")
	p.tokens = cmp.Or(p.tokens, vars["CHAIN_TOKENS"], os.Getenv("CHAIN_TOKENS"))
	p.key = cmp.Or(p.key, vars["DEVCHAIN_ACCOUNT_KEY"])
	if p.apiKey == "" { // the key `payledger dev merchant` kept
		p.apiKey = readDevchainEnv(filepath.Join(devDataDir(os.Getenv), devMerchantEnvFile))["PAYLEDGER_API_KEY"]
	}
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
		return fmt.Errorf("%s %s: %w (is payledger serve running there? --api)", method, url, err)
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

// splitOf is where the receipt is paid: the address the page shows, else --split, else the
// merchant's split read with its key.
func splitOf(ctx context.Context, p receiptPayFlags, portal any) (string, error) {
	if a := cmp.Or(findString(portal, "splitAddress"), p.split); a != "" {
		if !common.IsHexAddress(a) {
			return "", fmt.Errorf("split address %q is not an address", a)
		}
		return a, nil
	}
	if p.apiKey == "" {
		return "", errors.New("the page does not show the split address: give --split 0x… or --api-key (split:read) of the merchant")
	}
	var sp splitAnswer
	if err := apiCall(ctx, http.MethodGet, p.api+"/api/split/deploy", p.apiKey, nil, &sp); err != nil {
		return "", err
	}
	if sp.Split.Address == nil || !common.IsHexAddress(*sp.Split.Address) {
		return "", errors.New("the merchant has no split contract yet: POST /api/split/deploy first")
	}
	return *sp.Split.Address, nil
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

// receiptToken is the address (zero for ETH) and decimals of the token symbol, from tokens
// (CHAIN_TOKENS' format).
func receiptToken(tokens, symbol string) (common.Address, uint8, error) {
	if symbol == "ETH" {
		return common.Address{}, 18, nil
	}
	list, err := chain.ParseTokens(tokens)
	if err != nil {
		return common.Address{}, 0, err
	}
	t, ok := chain.FindToken(list, symbol)
	if !ok {
		return common.Address{}, 0, fmt.Errorf("token %s is not in %q (--tokens, the env file or CHAIN_TOKENS)", symbol, tokens)
	}
	return t.Address, t.Decimals, nil
}

// devchainPayReceipt pays receipt p.receiptID end to end, printing each step.
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
	var portal map[string]any
	if err := apiCall(ctx, http.MethodGet, p.api+"/api/portal/"+p.receiptID, "", nil, &portal); err != nil {
		return err
	}
	r, _ := portal["receipt"].(map[string]any)
	fmt.Fprintf(stdout, "receipt %s: %v %v, status %v\n", p.receiptID, r["totalUsd"], r["currency"], r["status"])
	split, err := splitOf(ctx, p, portal)
	if err != nil {
		return err
	}
	token := strings.ToUpper(p.token)
	var q struct {
		Amount string `json:"amount"`
	}
	if err := apiCall(ctx, http.MethodPost, p.api+"/api/portal/"+p.receiptID+"/quote", "", map[string]string{"token": token}, &q); err != nil {
		return err
	}
	tokenAddr, decimals, err := receiptToken(p.tokens, token)
	if err != nil {
		return err
	}
	units, err := baseUnits(q.Amount, decimals)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "quote: %s %s = %s base units, to the split %s\n", q.Amount, token, units, split)
	tr := transfer{key: key, token: tokenAddr, to: common.HexToAddress(split), amount: units}
	hash, err := sendTransfer(ctx, log, p.rpc, tr, true, io.Discard)
	if err != nil {
		return err
	}
	tx := hash.Hex()
	fmt.Fprintf(stdout, "sent %s from %s (mined)\n", tx, buyer.Hex())
	var sub map[string]any
	if err := apiCall(ctx, http.MethodPost, p.api+"/api/portal/"+p.receiptID+"/payment", "",
		map[string]string{"token": token, "transactionHash": tx, "buyerWallet": buyer.Hex()}, &sub); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "submitted: the receipt is %v; the verifier confirms it once the transaction is %d blocks deep, then the split is distributed\n",
		cmp.Or(findString(sub, "status"), "pending"), max(cfg.ChainConfirmations, 1))
	fmt.Fprintf(stdout, "watch it: curl %s/api/portal/%s\n", p.api, p.receiptID)
	return nil
}
