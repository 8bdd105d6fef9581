package main

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	"os"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/chain"
)

const devchainUsage = `usage:
  payledger devchain [--port 8545] [--accounts 3] [--block-interval 2s]
      run a development chain on 127.0.0.1 until interrupted; prints the variables that point
      payledger at it and the funded development accounts (state is lost when it stops)
  payledger devchain pay <receiptId> [--token USDC] [--base-url http://localhost:8080]
      pay a receipt of the running service end to end (see payledger devchain pay <id> --help)
  payledger devchain pay --key HEX --to 0xADDRESS --amount UNITS [--token USDC|USDT|ETH|0xTOKEN]
                         [--rpc URL] [--tokens CHAIN_TOKENS] [--no-wait]
      send a payment and print its transaction hash; the amount is in base units
      (12.50 USDC = 12500000, 0.01 ETH = 10000000000000000); --rpc defaults to ETH_RPC_URL
      and --tokens to CHAIN_TOKENS
`

// devchainCommand runs the development chain alone, or (pay) sends a payment on any chain.
func devchainCommand(ctx context.Context, cfg config, log zerolog.Logger, args []string, stdout io.Writer) error {
	if len(args) > 0 && args[0] == "pay" {
		if len(args) > 1 && !strings.HasPrefix(args[1], "-") {
			return devchainPayReceipt(ctx, cfg, log, args[1:], stdout)
		}
		return devchainPay(ctx, cfg, log, args[1:], stdout)
	}
	fs := flag.NewFlagSet("devchain", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	port := fs.Int("port", 8545, "HTTP JSON-RPC port on 127.0.0.1 (0: any free port)")
	accounts := fs.Int("accounts", 3, "funded development accounts")
	interval := fs.Duration("block-interval", 2*time.Second, "an empty block at least this often")
	if err := fs.Parse(args); err != nil {
		return badUsage(err, devchainUsage)
	}
	if fs.NArg() > 0 {
		return badUsage(fmt.Sprintf("unexpected arguments %q", fs.Args()), devchainUsage)
	}
	// The chain reads a zero or negative count or interval as its default: refuse them here
	// rather than run another chain than the one asked for.
	if *port < 0 || *port > 65535 || *accounts < 1 || *interval <= 0 {
		return badUsage("--port must be 0 to 65535, --accounts at least 1 and --block-interval positive", devchainUsage)
	}
	d, err := startDevChain(ctx, log, stdout, chain.DevChainOptions{Port: *port, Accounts: *accounts, BlockInterval: *interval})
	if err != nil {
		return err
	}
	defer os.Remove(devchainEnvFile())
	<-ctx.Done()
	log.Warn().Msg("development chain stopping: its state is lost")
	return d.Close()
}

// startDevChain starts the development chain and prints what a developer needs: the variables
// (NAME=value lines, usable as a .env file) and the funded accounts with their keys. It is the
// one start shared by `payledger devchain` and serve's DEVCHAIN=auto.
func startDevChain(ctx context.Context, log zerolog.Logger, out io.Writer, opts chain.DevChainOptions) (*chain.DevChain, error) {
	d, err := chain.StartDevChain(ctx, opts)
	if err != nil {
		return nil, err
	}
	log.Warn().Str("url", d.URL).Uint64("chain_id", d.ChainID).
		Msg("development chain started in memory: its state (payments, splits, balances) is lost when it stops")
	fmt.Fprintln(out, "# payledger development chain: in memory, state is lost when it stops")
	for _, line := range d.Env() {
		fmt.Fprintln(out, line)
	}
	units := new(big.Int).Quo(chain.DevAccountUnits, big.NewInt(1e6))
	wei := new(big.Int).Quo(chain.DevAccountWei, big.NewInt(1e18))
	symbols := make([]string, len(d.Tokens))
	for i, t := range d.Tokens {
		symbols[i] = t.Symbol
	}
	fmt.Fprintf(out, "# development accounts (%s ETH and %s each of %s; keys valid for this run only):\n",
		wei, units, strings.Join(symbols, ", "))
	for _, a := range d.Accounts {
		fmt.Fprintf(out, "#   %s  key 0x%s\n", a.Address.Hex(), a.KeyHex())
	}
	f := devchainEnvFile()
	if err := writeDevchainEnv(f, d); err != nil {
		// Unsaid, `devchain pay` then read an older chain's file, or none ("is the development
		// chain running?"), with this chain running.
		log.Warn().Err(err).Str("file", f).Msg("development chain: its variables and account key could not be written for " +
			"`payledger devchain pay <receiptId>`: set DEVCHAIN_ENV_FILE to a file you can write, or pass devchain pay --key and --rpc")
	} else {
		fmt.Fprintf(out, "# written to %s for `payledger devchain pay <receiptId>` (first account pays)\n", f)
	}
	return d, nil
}

// autoDevChain is serve's DEVCHAIN=auto: in development, with ETH_RPC_URL unset and mode not
// "off", it starts the in-process development chain on port (8545 for serve, so that a wallet
// configured once keeps working; any free port when that one is taken), prints its banner to
// out, and points cfg at it (ETH_RPC_URL, CHAIN_ID, CHAIN_TOKENS, CHAIN_OPERATOR_KEY,
// SPEND_PERMISSION_MANAGER, DEPOSIT_FACTORY). It returns nil when no chain is wanted; the caller closes it.
func autoDevChain(ctx context.Context, cfg *config, mode string, port int, log zerolog.Logger, out io.Writer) (*chain.DevChain, error) {
	if cfg.production() || cfg.EthRPCURL != "" || mode == "off" {
		return nil, nil
	}
	d, err := startDevChain(ctx, log, out, chain.DevChainOptions{Port: port})
	if err != nil && port != 0 {
		log.Warn().Err(err).Int("port", port).Msg("development chain: port unavailable, using a free one")
		d, err = startDevChain(ctx, log, out, chain.DevChainOptions{})
	}
	if err != nil {
		return nil, err
	}
	cfg.EthRPCURL, cfg.ChainID = d.URL, int64(d.ChainID)
	cfg.ChainTokens, cfg.OperatorKey, cfg.SpendPermissionManager = d.Tokens, d.Operator.KeyHex(), d.SpendPermissionManager.Hex()
	cfg.DepositFactory = d.DepositFactory.Hex()
	return d, nil
}

// payFlags are the options of `devchain pay`.
type payFlags struct {
	rpc, key, token, tokens, to, amount string
	noWait                              bool
}

func parsePayFlags(cfg config, args []string) (payFlags, error) {
	var p payFlags
	fs := flag.NewFlagSet("devchain pay", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	rpcDefault := cfg.EthRPCURL
	if rpcDefault == "" {
		rpcDefault = "http://127.0.0.1:8545"
	}
	fs.StringVar(&p.rpc, "rpc", rpcDefault, "JSON-RPC URL")
	fs.StringVar(&p.key, "key", "", "payer's private key, 64 hex")
	fs.StringVar(&p.token, "token", "USDC", "symbol in --tokens, ETH, or a token address")
	fs.StringVar(&p.tokens, "tokens", os.Getenv("CHAIN_TOKENS"), "SYMBOL=0xaddress:decimals,...")
	fs.StringVar(&p.to, "to", "", "recipient (the merchant's split address)")
	fs.StringVar(&p.amount, "amount", "", "amount in base units")
	fs.BoolVar(&p.noWait, "no-wait", false, "print the hash without waiting for the block")
	if err := fs.Parse(args); err != nil {
		return p, badUsage(err, devchainUsage)
	}
	if fs.NArg() > 0 {
		return p, badUsage(fmt.Sprintf("unexpected arguments %q", fs.Args()), devchainUsage)
	}
	if p.key == "" || p.to == "" || p.amount == "" {
		return p, badUsage("--key, --to and --amount are required", devchainUsage)
	}
	// Wrong values are a wrong command line too (exit 2), found before the node is dialled.
	if !common.IsHexAddress(p.to) {
		return p, badUsage(fmt.Sprintf("--to %q is not an address", p.to), devchainUsage)
	}
	if amount, ok := new(big.Int).SetString(p.amount, 10); !ok || amount.Sign() <= 0 {
		return p, badUsage(fmt.Sprintf("--amount %q is not a positive integer of base units", p.amount), devchainUsage)
	}
	if err := keyFlag(p.key); err != nil {
		return p, badUsage(err, devchainUsage)
	}
	return p, nil
}

// keyFlag checks a --key value: a private key, 64 hex digits (0x optional). The error never
// repeats the value (a key, perhaps a real one).
func keyFlag(key string) error {
	if _, err := crypto.HexToECDSA(strings.TrimPrefix(key, "0x")); err != nil {
		return errors.New("--key must be a private key of 64 hex digits (0x optional)")
	}
	return nil
}

// resolveToken is the token address to pay (zero for ETH).
func resolveToken(p payFlags) (common.Address, error) {
	switch {
	case strings.EqualFold(p.token, "ETH"):
		return common.Address{}, nil
	case common.IsHexAddress(p.token):
		return common.HexToAddress(p.token), nil
	}
	tokens, err := chain.ParseTokens(p.tokens)
	if err != nil {
		return common.Address{}, err
	}
	t, ok := chain.FindToken(tokens, p.token)
	if !ok {
		return common.Address{}, fmt.Errorf("--token %s is not in --tokens/CHAIN_TOKENS %q (the devchain prints it)", p.token, p.tokens)
	}
	return t.Address, nil
}

// devchainPay sends one payment, prints its hash and, unless --no-wait, waits for its block.
func devchainPay(ctx context.Context, cfg config, log zerolog.Logger, args []string, stdout io.Writer) error {
	p, err := parsePayFlags(cfg, args)
	if err != nil {
		return err
	}
	amount, ok := new(big.Int).SetString(p.amount, 10)
	if !ok || amount.Sign() <= 0 {
		return fmt.Errorf("--amount %q is not a positive integer of base units", p.amount)
	}
	key, err := crypto.HexToECDSA(strings.TrimPrefix(p.key, "0x"))
	if err != nil {
		return fmt.Errorf("--key: %w", err)
	}
	token, err := resolveToken(p)
	if err != nil {
		return err
	}
	_, err = sendTransfer(ctx, log, p.rpc, transfer{key: key, token: token, to: common.HexToAddress(p.to), amount: amount}, !p.noWait, stdout)
	return err
}

// transfer is one payment: amount base units of token (the zero address: ETH) from key to to.
type transfer struct {
	key       *ecdsa.PrivateKey
	token, to common.Address
	amount    *big.Int
}

// sendTransfer sends tr through the node at rpcURL, prints its hash (before any wait, for
// --no-wait and for whoever watches) and, when wait, waits for its block.
func sendTransfer(ctx context.Context, log zerolog.Logger, rpcURL string, tr transfer, wait bool, stdout io.Writer) (common.Hash, error) {
	ec, err := ethclient.DialContext(ctx, rpcURL)
	if err != nil {
		return common.Hash{}, err
	}
	defer ec.Close()
	id, err := ec.ChainID(ctx)
	if err != nil {
		return common.Hash{}, fmt.Errorf("%s: %w", rpcURL, err)
	}
	opts, err := bind.NewKeyedTransactorWithChainID(tr.key, id)
	if err != nil {
		return common.Hash{}, err
	}
	opts.Context = ctx
	var tx *types.Transaction
	if tr.token == (common.Address{}) {
		opts.Value = tr.amount
		tx, err = chain.SendETH(opts, ec, tr.to)
	} else {
		tx, err = chain.SendToken(opts, ec, tr.token, tr.to, tr.amount)
	}
	if err != nil {
		return common.Hash{}, fmt.Errorf("sending: %w", err)
	}
	fmt.Fprintln(stdout, tx.Hash().Hex())
	if !wait {
		return tx.Hash(), nil
	}
	return tx.Hash(), waitMined(ctx, log, ec, tx)
}

// waitMined waits up to a minute for tx's receipt and logs its block; a revert is an error.
func waitMined(ctx context.Context, log zerolog.Logger, ec *ethclient.Client, tx *types.Transaction) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for {
		r, err := ec.TransactionReceipt(ctx, tx.Hash())
		if err == nil {
			if r.Status != types.ReceiptStatusSuccessful {
				return fmt.Errorf("transaction %s reverted in block %d", tx.Hash().Hex(), r.BlockNumber)
			}
			log.Info().Str("tx", tx.Hash().Hex()).Uint64("block", r.BlockNumber.Uint64()).Uint64("gas_used", r.GasUsed).Msg("mined")
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("transaction %s not mined: %w", tx.Hash().Hex(), ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}
