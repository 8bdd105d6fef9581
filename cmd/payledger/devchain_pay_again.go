package main

import (
	"context"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/payledger/payledger/chain/contracts"
)

// A second `devchain pay <receiptId>` while the first one's transfer is not yet deep enough to
// count paid the receipt twice: the payment request asks for what the confirmed transfers leave,
// and an unconfirmed one leaves it all. A wallet warns of a payment under way; so does this, and
// --again sends anyway (a payment that reverted, or a second one meant).

// payable is what to send for req (sendUnits) once the request is one this run can pay: on the
// chain at p.rpc and, when guard, with no payment under way (uncounted).
func payable(ctx context.Context, p receiptPayFlags, req payRequest, guard bool) (*big.Int, error) {
	units, err := sendUnits(p, req)
	if err != nil {
		return nil, err
	}
	if err := sameChain(ctx, p, req); err != nil {
		return nil, err
	}
	if guard {
		if err := uncounted(ctx, p, req); err != nil {
			return nil, err
		}
	}
	return units, nil
}

// sameChain is an error when the service asks for a payment on another chain than the one at
// p.rpc (a request without chainId is taken as on it). A transfer there was reported sent and
// mined, and to be found by the service, which watches another chain: a token address with no
// contract on this chain even "transfers" without an error.
func sameChain(ctx context.Context, p receiptPayFlags, req payRequest) error {
	if req.ChainID == 0 {
		return nil
	}
	ec, err := ethclient.DialContext(ctx, p.rpc)
	if err != nil {
		return err
	}
	defer ec.Close()
	id, err := ec.ChainID(ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", p.rpc, err)
	}
	if id.Cmp(big.NewInt(req.ChainID)) != 0 {
		return fmt.Errorf("the service asks for a payment on chain %d, and the chain at %s is chain %d: nothing was sent "+
			"(--rpc, --env-file: the service's ETH_RPC_URL)", req.ChainID, p.rpc, id)
	}
	return nil
}

// paymentUnderWay is an error when the portal's receipt r says a payment is being confirmed:
// pending with nothing confirmed yet (a transfer seen, or a hash submitted). Pending with a part
// confirmed is an underpayment: its request asks for the rest.
func paymentUnderWay(p receiptPayFlags, r map[string]any) error {
	if r["status"] != "pending" {
		return nil
	}
	if s, ok := r["amountReceived"].(string); ok {
		if got, ok := new(big.Rat).SetString(s); ok && got.Sign() > 0 {
			return nil
		}
	}
	return fmt.Errorf("receipt %s is pending: a payment to it is being confirmed, and paying again would pay it twice; "+
		"watch it (curl %s/api/portal/%s) until it is paid, or underpaid (then this pays the rest); "+
		"--again sends another payment anyway. Nothing was sent", p.receiptID, p.api, p.receiptID)
}

// uncounted is an error when the deposit address already holds more of the request's token than
// the service counts as received (the request's whole amount less what is still due; nothing
// when the request does not say its whole amount): a transfer mined but not yet deep enough to
// count, which the service may not even have seen yet.
func uncounted(ctx context.Context, p receiptPayFlags, req payRequest) error {
	held, err := depositHolds(ctx, p.rpc, req)
	if err != nil {
		return fmt.Errorf("reading what the deposit address %s holds: %w; nothing was sent", req.Recipient, err)
	}
	counted := new(big.Int)
	if req.AmountRequired != "" {
		whole, err := baseUnits(req.AmountRequired, req.Decimals)
		due, ok := new(big.Int).SetString(req.AmountUnits, 10)
		if err != nil || !ok {
			return fmt.Errorf("the payment request's amountRequired %q or amountUnits %q is not an amount", req.AmountRequired, req.AmountUnits)
		}
		counted.Sub(whole, due)
	}
	if held.Cmp(counted) <= 0 {
		return nil
	}
	return fmt.Errorf("the deposit address %s already holds %s base units of %s the service does not count yet (a transfer "+
		"not yet deep enough, an earlier devchain pay): paying %s more would pay twice; wait until the receipt is paid or "+
		"underpaid (curl %s/api/portal/%s), or --again sends anyway. Nothing was sent",
		req.Recipient, new(big.Int).Sub(held, counted), req.Token, req.AmountUnits, p.api, p.receiptID)
}

// depositHolds is the deposit address's balance of the request's token (ETH without a token
// address) at the chain's latest block.
func depositHolds(ctx context.Context, rpcURL string, req payRequest) (*big.Int, error) {
	ec, err := ethclient.DialContext(ctx, rpcURL)
	if err != nil {
		return nil, err
	}
	defer ec.Close()
	deposit := common.HexToAddress(req.Recipient)
	if req.TokenAddress == "" {
		return ec.BalanceAt(ctx, deposit, nil)
	}
	tok, err := contracts.NewTestToken(common.HexToAddress(req.TokenAddress), ec)
	if err != nil {
		return nil, err
	}
	return tok.BalanceOf(&bind.CallOpts{Context: ctx}, deposit)
}
