package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/google/uuid"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/transport"
)

const keysUsage = `usage:
  payledger keys create --wallet 0x... --scopes a,b [--name n]   prints the new key alone on its last line
  payledger keys revoke --wallet 0x... --id <key id>
`

// keysCommand manages subscription keys from the command line.
func keysCommand(ctx context.Context, cfg config, log zerolog.Logger, args []string, stdout io.Writer) error {
	if len(args) == 0 || (args[0] != "create" && args[0] != "revoke") {
		return badUsage("payledger keys: create or revoke", keysUsage)
	}
	fs := flag.NewFlagSet("keys "+args[0], flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	wallet := fs.String("wallet", "", "merchant wallet the key belongs to")
	scopes := fs.String("scopes", "", "comma-separated scopes")
	name := fs.String("name", "", "a name to recognise the key by")
	id := fs.String("id", "", "key id (revoke)")
	if err := fs.Parse(args[1:]); err != nil {
		return badUsage(err, keysUsage)
	}
	if !transport.ValidWallet(*wallet) {
		return errors.New("--wallet must be a 0x-prefixed 40-hex-character address")
	}
	pool, _, closeLedger, err := openLedger(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer closeLedger()
	keys := readmodels.NewKeys(pool)
	w := strings.ToLower(*wallet)
	switch args[0] {
	case "create":
		list := strings.Split(*scopes, ",")
		if *scopes == "" {
			list = nil
		}
		if err := transport.ValidateScopes(list); err != nil {
			var apiErr *transport.Error
			if errors.As(err, &apiErr) {
				return errors.New(apiErr.Message)
			}
			return err
		}
		secret, key, err := keys.Create(ctx, w, *name, list)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "created key %s for %s with scopes %s (shown once; only its SHA-256 is stored)\n%s\n",
			key.ID, key.Wallet, strings.Join(key.Scopes, ","), secret)
		return nil
	case "revoke":
		kid, err := uuid.Parse(*id)
		if err != nil {
			return errors.New("--id must be a key id")
		}
		if err := keys.Revoke(ctx, w, kid); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "revoked key %s\n", kid)
		return nil
	}
	return errors.New(keysUsage)
}
