package settlement

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/address"
	"github.com/payledger/payledger/domain/split"
)

// DeploySplitHandler is POST /api/split/deploy: with a chain and an operator key, a split without
// an address is deployed from the operator account first, and a given address must hold code.
// Without a chain it is ConfigureSplitHandler, as before.
type DeploySplitHandler struct {
	configure *commands.ConfigureSplitHandler
	sender    *OperatorSender // nil: no chain or no operator key
	chain     SplitChain      // nil: no chain configured
	wait      time.Duration   // how long a deployment may take to be mined
	poll      time.Duration
	mu        sync.Mutex // one deployment at a time: two clicks deploy one contract
}

// NewDeploySplitHandler returns the handler. chain nil: no chain is configured (the address is
// required and not checked); sender nil: no operator key (nothing is deployed). It panics on a
// nil configure.
func NewDeploySplitHandler(configure *commands.ConfigureSplitHandler, chain SplitChain, sender *OperatorSender) *DeploySplitHandler {
	if configure == nil {
		panic("settlement.NewDeploySplitHandler: nil dependency")
	}
	return &DeploySplitHandler{configure: configure, chain: chain, sender: sender, wait: 2 * time.Minute, poll: 200 * time.Millisecond}
}

// Handle configures the split, deploying its contract when no address is given and an operator
// key is configured. Errors: ConfigureSplitHandler's; Invalid when the given address holds no
// code; ErrChainUnavailable when the chain does not answer or the deployment is not mined in time.
func (h *DeploySplitHandler) Handle(ctx context.Context, cmd commands.ConfigureMerchantSplit) (commands.SplitResult, error) {
	if h.chain != nil && cmd.Address != "" && splitAddressShape(cmd.Address) {
		ok, err := h.chain.HasCode(ctx, cmd.Address)
		if err != nil {
			return commands.SplitResult{}, fmt.Errorf("%w: %v", ErrChainUnavailable, err)
		}
		if !ok {
			return commands.SplitResult{}, commands.Invalidf("splitAddress %s holds no contract on this chain", cmd.Address)
		}
		if err := h.paysMerchant(ctx, cmd); err != nil {
			return commands.SplitResult{}, err
		}
	}
	if cmd.Address != "" || h.sender == nil {
		return h.configure.Handle(ctx, cmd)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	existing, err := h.configure.Current(ctx, cmd.Merchant)
	if err != nil {
		return commands.SplitResult{}, err
	}
	if existing.Configured {
		return h.redeployMissing(ctx, cmd, existing)
	}
	// The rules first (a placeholder address): an invalid split is never deployed.
	probe := cmd
	probe.Address = "0x" + strings.Repeat("0", 40)
	recipients, err := h.recipients(probe)
	if err != nil {
		return commands.SplitResult{}, err
	}
	addr, err := h.deploy(ctx, recipients)
	if err != nil {
		return commands.SplitResult{}, err
	}
	cmd.Address, cmd.Recipients = addr, &recipients
	return h.configure.Handle(ctx, cmd)
}

// redeployMissing answers a configured split unchanged, unless its contract holds no code on the
// chain followed (a new development chain, issue 40): then the same split (recipients and
// shares) is deployed again and the merchant's split moves to it (SplitRedeployed).
func (h *DeploySplitHandler) redeployMissing(ctx context.Context, cmd commands.ConfigureMerchantSplit, existing split.State) (commands.SplitResult, error) {
	unchanged := commands.SplitResult{State: existing, Idempotent: true}
	if h.chain == nil {
		return unchanged, nil
	}
	ok, err := h.chain.HasCode(ctx, existing.Address)
	if err != nil {
		return commands.SplitResult{}, fmt.Errorf("%w: %v", ErrChainUnavailable, err)
	}
	if ok {
		return unchanged, nil
	}
	addr, err := h.deploy(ctx, existing.Recipients)
	if err != nil {
		return commands.SplitResult{}, err
	}
	return h.configure.Redeployed(ctx, cmd.Merchant, addr, "the split "+existing.Address+" holds no code on the chain followed", cmd.Meta)
}

// paysMerchant refuses a split contract another merchant configured (ErrSplitClaimed, 409) and a
// pre-deployed split that does not pay the merchant's wallet a share (400; DESIGN 9: a split
// contract belongs to one merchant). A configured merchant's later call
// answers its split unchanged, so it is not asked.
func (h *DeploySplitHandler) paysMerchant(ctx context.Context, cmd commands.ConfigureMerchantSplit) error {
	existing, err := h.configure.Current(ctx, cmd.Merchant)
	if err != nil || existing.Configured {
		return err
	}
	if err := h.configure.CheckOwner(ctx, cmd.Merchant, cmd.Address); err != nil {
		return err
	}
	shares, err := h.chain.Shares(ctx, cmd.Address, cmd.Merchant)
	if err != nil || shares.Sign() <= 0 {
		return commands.Invalidf("splitAddress %s does not pay your wallet %s a share (a PaymentSplit with it among its payees is required)", cmd.Address, cmd.Merchant)
	}
	return nil
}

// ErrChainUnavailable: the chain did not answer, or a transaction was not mined in time.
var ErrChainUnavailable = &commands.Refusal{Kind: commands.KindUnavailable, Code: "chain_unavailable", Message: "The chain did not answer; try again"}

func splitAddressShape(a string) bool { return address.Valid(a) }

// recipients decides the split with a placeholder address and returns its recipients.
func (h *DeploySplitHandler) recipients(cmd commands.ConfigureMerchantSplit) ([]commands.SplitRecipient, error) {
	c := split.Configure{Merchant: cmd.Merchant, Address: cmd.Address, Platform: h.configure.Platform()}
	if cmd.Recipients != nil {
		c.Recipients = *cmd.Recipients
		if c.Recipients == nil {
			c.Recipients = []split.Recipient{}
		}
	}
	evs, err := split.Decide(split.State{}, c, time.Time{})
	switch {
	case errors.Is(err, split.ErrPlatformNotConfigured):
		return nil, commands.ErrPlatformRecipient
	case errors.Is(err, split.ErrInvalid):
		return nil, commands.Invalid(err.Error())
	case err != nil:
		return nil, err
	}
	return evs[0].Recipients, nil
}

// deploy signs, records and sends the deployment, then waits for it to be mined.
func (h *DeploySplitHandler) deploy(ctx context.Context, rs []commands.SplitRecipient) (string, error) {
	payees, shares := make([]string, len(rs)), make([]int, len(rs))
	for i, r := range rs {
		payees[i], shares[i] = r.Address, r.SharesBps
	}
	tx, err := h.sender.Send(ctx, OperatorTx{Kind: TxDeploy}, nil, func(nonce uint64) (SignedTx, error) {
		return h.chain.SignDeploy(ctx, nonce, payees, shares)
	})
	if err != nil {
		return "", fmt.Errorf("%w: deploying the split: %v", ErrChainUnavailable, err)
	}
	wait, cancel := context.WithTimeout(ctx, h.wait)
	defer cancel()
	for {
		out, err := h.chain.Outcome(wait, tx.Hash)
		if err == nil && out != nil {
			status := TxMined
			if !out.Success {
				status = TxReverted
			}
			if err := h.sender.ledger.Settle(ctx, tx.ID, status, "", out.GasUsed); err != nil {
				return "", err
			}
			if !out.Success {
				return "", fmt.Errorf("split deployment %s reverted", tx.Hash)
			}
			return strings.ToLower(out.Contract), nil
		}
		if err := sleep(wait, h.poll); err != nil {
			return "", fmt.Errorf("%w: the deployment %s is not mined yet", ErrChainUnavailable, tx.Hash)
		}
	}
}
