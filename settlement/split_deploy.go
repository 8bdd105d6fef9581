package settlement

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/rpc"

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
// key is configured; a given (pre-deployed) contract's payees and shares are what is recorded.
// Errors: ConfigureSplitHandler's; Invalid when the given address holds no code, does not pay
// the merchant, or pays others than the body's recipients (contractRecipients), and when the
// node says the deployment reverts; ErrChainUnavailable when the chain does not answer or the
// deployment is not mined in time, or a configured split's missing code is not confirmed in time
// (splitGone).
func (h *DeploySplitHandler) Handle(ctx context.Context, cmd commands.ConfigureMerchantSplit) (commands.SplitResult, error) {
	if h.chain != nil && cmd.Address != "" && splitAddressShape(cmd.Address) {
		rs, err := h.contractRecipients(ctx, cmd)
		if err != nil {
			return commands.SplitResult{}, err
		}
		if rs != nil { // the split is the contract's: its payees and shares are what it pays
			cmd.Recipients, cmd.CodeSeenAt = &rs, h.codeSeenAt(ctx, cmd.Address)
		}
	}
	if cmd.Address != "" || h.sender == nil {
		return h.configure.Handle(ctx, cmd)
	}
	existing, err := h.configure.Current(ctx, cmd.Merchant)
	if err != nil {
		return commands.SplitResult{}, err
	}
	if existing.Configured { // its check takes the lock only to deploy (splitGone may wait minutes)
		return h.redeployMissing(ctx, cmd, existing)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	// A deployment, once sent, is mined whatever the client does: it is waited for (at most
	// h.wait) and configured even when the client leaves. On the request's context, a client gone
	// (a tab closed, a proxy's timeout) left the contract deployed and not configured, and the
	// merchant's next call deployed a second one, the operator paying the gas twice.
	ctx = context.WithoutCancel(ctx)
	if existing, err = h.configure.Current(ctx, cmd.Merchant); err != nil {
		return commands.SplitResult{}, err
	}
	if existing.Configured { // by a call that held the lock first (a second click): just deployed
		return commands.SplitResult{State: existing, Idempotent: true}, nil
	}
	// The rules first (a placeholder address, any valid one but the zero address, which the rules
	// refuse as a split): an invalid split is never deployed.
	probe := cmd
	probe.Address = "0x" + strings.Repeat("0", 39) + "1"
	recipients, err := h.recipients(probe)
	if err != nil {
		return commands.SplitResult{}, err
	}
	addr, err := h.deploy(ctx, recipients)
	if err != nil {
		return commands.SplitResult{}, err
	}
	cmd.Address, cmd.Recipients, cmd.CodeSeenAt = addr, &recipients, h.codeSeenAt(ctx, addr)
	return h.configure.Handle(ctx, cmd)
}

// redeployMissing answers a configured split unchanged, unless its contract holds no code on the
// chain followed (a new development chain, issue 40): then the same split (recipients and
// shares) is deployed again and the merchant's split moves to it (SplitRedeployed). Missing
// means splitGone's word: no code in two blocks redeployBlocks apart, the later one stamped after
// the split's recording. That check runs without the lock, on the request's context (a client
// that leaves ends it; nothing is deployed yet): it may wait for a node behind the chain up to
// h.wait, and every other merchant's deployment waited behind it. The deployment takes the lock
// and goes on when the client leaves, as a first one does; a call that moved the split meanwhile
// is answered.
func (h *DeploySplitHandler) redeployMissing(ctx context.Context, cmd commands.ConfigureMerchantSplit, existing split.State) (commands.SplitResult, error) {
	unchanged := commands.SplitResult{State: existing, Idempotent: true}
	if h.chain == nil {
		return unchanged, nil
	}
	gone, err := h.splitGone(ctx, existing)
	if err != nil || !gone {
		return unchanged, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	ctx = context.WithoutCancel(ctx)
	current, err := h.configure.Current(ctx, cmd.Merchant)
	if err != nil {
		return commands.SplitResult{}, err
	}
	if current.Address != existing.Address { // deployed again by a call that held the lock first
		return commands.SplitResult{State: current, Idempotent: true}, nil
	}
	addr, err := h.deploy(ctx, existing.Recipients)
	if err != nil {
		return commands.SplitResult{}, err
	}
	reason := "the split " + existing.Address + " holds no code on the chain followed"
	return h.configure.Redeployed(ctx, cmd.Merchant, addr, reason, h.codeSeenAt(ctx, addr), cmd.Meta)
}

// codeSeenAt is the time (Unix s) of the node's head block when that block holds split's code,
// recorded with the split (CodeSeenAt): on that chain every block stamped later holds it too.
// 0 without a chain, when a read fails or the head does not hold the code
// (a node behind the deployment): the recording's own time stands in (split.State.CodeSince).
func (h *DeploySplitHandler) codeSeenAt(ctx context.Context, split string) int64 {
	r := h.chain
	if r == nil {
		return 0
	}
	head, err := r.Head(ctx)
	if err != nil {
		return 0
	}
	if code, err := r.CodeAtBlock(ctx, split, head); err != nil || !code {
		return 0
	}
	t, err := r.BlockTime(ctx, head)
	if err != nil {
		return 0
	}
	return int64(t)
}

// SplitCodeReader reads a contract's code in a named block (*chain.Operator is one): what tells a
// split gone from the chain from a node behind its deployment.
type SplitCodeReader interface {
	// Head is the number of the node's latest block.
	Head(ctx context.Context) (uint64, error)
	// CodeAtBlock says whether address holds code in block n; a node short of n answers an error.
	CodeAtBlock(ctx context.Context, address string, n uint64) (bool, error)
	// BlockTime is block n's timestamp (Unix s); a node short of n answers an error.
	BlockTime(ctx context.Context, n uint64) (uint64, error)
}

// redeployBlocks is how far apart the two blocks are in which a configured split must hold no
// code before it is deployed again. One read at the head was the rule: a node a block behind (the
// second click right after a deployment, another node behind a provider's load balancer) said
// "no code", and a second contract was deployed (gas) and the merchant's split moved, while
// processor payments sent to the first were marked reconciled with nothing released. A node
// behind the deployment by fewer blocks than this has reached it at the second read.
const redeployBlocks = 4

// splitGone says whether st's split holds no code in a block redeployBlocks past the node's head
// at the call and stamped after st.CodeSince, read at that block's number (a node short of it
// errs rather than saying "no code"). The blocks from the head on are read as they come: code in
// any of them answers false at once; a read that errs (another node of a provider behind the
// block named) is made again. The stamp is what a node any number of blocks behind the
// deployment cannot show: its blocks all precede the one the code was recorded in, so it is read
// on until it reaches the code (false) or h.wait ends; a new development chain's blocks are
// stamped now. Without a chain no split is proved gone. Errors:
// ErrChainUnavailable when the node does not name its head, or no such block is read within h.wait.
func (h *DeploySplitHandler) splitGone(ctx context.Context, st split.State) (bool, error) {
	r := h.chain
	if r == nil {
		return false, nil
	}
	first, err := r.Head(ctx)
	if err != nil {
		return false, fmt.Errorf("%w: %v", ErrChainUnavailable, err)
	}
	wait, cancel := context.WithTimeout(ctx, h.wait)
	defer cancel()
	late := fmt.Errorf("%w: the split %s holds no code at block %d; no block %d or later stamped after %s was read without it in time",
		ErrChainUnavailable, st.Address, first, first+redeployBlocks, time.Unix(st.CodeSince, 0).UTC().Format(time.RFC3339))
	head, read, none := first, uint64(0), false // read: the last block read with no code (none: one was)
	for {
		if !none || head > read {
			code, err := r.CodeAtBlock(wait, st.Address, head)
			switch {
			case err != nil: // a node behind the head just named (a provider's other node): read again
			case code: // the node has reached the deployment
				return false, nil
			case head >= first+redeployBlocks && stampedAfter(wait, r, head, st.CodeSince):
				return true, nil
			default:
				read, none = head, true
			}
		}
		if err := sleep(wait, h.poll); err != nil {
			return false, late
		}
		head, err = r.Head(wait)
		if err != nil && wait.Err() != nil {
			return false, late
		}
		if err != nil {
			return false, chainUnavailable(err)
		}
	}
}

// stampedAfter says whether block n is stamped after since (Unix s; 0: any block is); a block
// whose time is not read is not.
func stampedAfter(ctx context.Context, r SplitCodeReader, n uint64, since int64) bool {
	if since <= 0 {
		return true
	}
	t, err := r.BlockTime(ctx, n)
	return err == nil && int64(t) > since
}

// chainUnavailable is err as ErrChainUnavailable; nil stays nil.
func chainUnavailable(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%w: %v", ErrChainUnavailable, err)
}

// contractRecipients is what the pre-deployed split at cmd.Address pays, read from the contract
// (its payees and their shares, in basis points): the recipients to record, since the
// distributor releases to the recorded ones and a payee left out would never be paid. nil (no
// error) when the merchant's split is configured already: a later call answers it unchanged
// (the spec's idempotent configuration), so the address is not checked at all. Refused: a
// contract another merchant configured (ErrSplitClaimed, 409); 400 invalid_input for an address
// that holds no code, a contract that does not answer as a PaymentSplit, whose shares
// are not whole basis points, that does not pay the merchant's wallet a share (DESIGN 9), or
// whose payees and shares differ from the body's recipients. The platform recipient need not
// be a payee, as with recipients given for a split deployed here (docs: decision-splits).
func (h *DeploySplitHandler) contractRecipients(ctx context.Context, cmd commands.ConfigureMerchantSplit) ([]split.Recipient, error) {
	existing, err := h.configure.Current(ctx, cmd.Merchant)
	if err != nil || existing.Configured {
		return nil, err
	}
	if err := h.configure.CheckOwner(ctx, cmd.Merchant, cmd.Address); err != nil {
		return nil, err
	}
	code, err := h.chain.HasCode(ctx, cmd.Address)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrChainUnavailable, err)
	}
	if !code {
		return nil, commands.Invalidf("splitAddress %s holds no contract on this chain", cmd.Address)
	}
	payees, shares, ok, err := h.chain.SplitPayees(ctx, cmd.Address, split.MaxRecipients)
	if err != nil {
		return nil, fmt.Errorf("%w: reading the payees of %s: %v", ErrChainUnavailable, cmd.Address, err)
	}
	if !ok {
		return nil, commands.Invalidf("splitAddress %s does not pay your wallet %s a share (a PaymentSplit with it among its payees is required; this contract does not answer as one)", cmd.Address, cmd.Merchant)
	}
	if len(payees) > split.MaxRecipients {
		return nil, commands.Invalidf("splitAddress %s has more than %d payees; at most %d are supported", cmd.Address, split.MaxRecipients, split.MaxRecipients)
	}
	rs, err := sharesInBps(payees, shares)
	if err != nil {
		return nil, commands.Invalidf("splitAddress %s: %v", cmd.Address, err)
	}
	merchant := strings.ToLower(cmd.Merchant)
	if !slices.ContainsFunc(rs, func(r split.Recipient) bool { return r.Address == merchant }) {
		return nil, commands.Invalidf("splitAddress %s does not pay your wallet %s a share (a PaymentSplit with it among its payees is required); its payees are %s", cmd.Address, cmd.Merchant, describeRecipients(rs))
	}
	if cmd.Recipients != nil && !sameRecipients(*cmd.Recipients, rs) {
		return nil, commands.Invalidf("recipients differ from what splitAddress %s pays (%s); leave recipients out to use the contract's, or give exactly those", cmd.Address, describeRecipients(rs))
	}
	return rs, nil
}

// sharesInBps turns a split contract's shares into basis points of their total; refused when a
// share is not a whole number of basis points (the split could not be recorded as it pays).
func sharesInBps(payees []string, shares []*big.Int) ([]split.Recipient, error) {
	total := new(big.Int)
	for _, s := range shares {
		total.Add(total, s)
	}
	out := make([]split.Recipient, len(payees))
	for i, p := range payees {
		bps, rem := new(big.Int).QuoRem(new(big.Int).Mul(shares[i], big.NewInt(split.TotalBps)), total, new(big.Int))
		if rem.Sign() != 0 {
			return nil, fmt.Errorf("the shares of payee %s (%s of %s) are not a whole number of basis points", p, shares[i], total)
		}
		out[i] = split.Recipient{Address: strings.ToLower(p), SharesBps: int(bps.Int64())}
	}
	return out, nil
}

// sameRecipients says whether given names the same recipients with the same shares as want, in
// any order (addresses in any case).
func sameRecipients(given, want []split.Recipient) bool {
	if len(given) != len(want) {
		return false
	}
	bps := make(map[string]int, len(want))
	for _, r := range want {
		bps[r.Address] = r.SharesBps
	}
	for _, r := range given {
		b, ok := bps[strings.ToLower(r.Address)]
		if !ok || b != r.SharesBps {
			return false
		}
		delete(bps, strings.ToLower(r.Address))
	}
	return len(bps) == 0
}

// describeRecipients is rs as "0xaaaa… 9950 bps, 0xbbbb… 50 bps".
func describeRecipients(rs []split.Recipient) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = fmt.Sprintf("%s %d bps", r.Address, r.SharesBps)
	}
	return strings.Join(parts, ", ")
}

// ErrChainUnavailable: the chain did not answer, or a transaction was not mined in time.
var ErrChainUnavailable = &commands.Refusal{Kind: commands.KindUnavailable, Code: "chain_unavailable", Message: "The chain did not answer; try again"}

func splitAddressShape(a string) bool { return address.Valid(a) }

// deployReverts says whether a deployment's error is the node saying, at its gas estimate, that
// the deployment reverts: a refusal of the split (400), not the chain's unavailability (503);
// trying again would revert again.
func deployReverts(err error) bool {
	var re rpc.Error
	if errors.As(err, &re) && re.ErrorCode() == 3 { // "execution reverted" with its revert data
		return true
	}
	return strings.Contains(strings.ToLower(err.Error()), "revert")
}

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
	if err != nil && deployReverts(err) { // the node says the constructor refuses these payees
		return "", commands.Invalidf("the split contract refuses these recipients and shares: %v", err)
	}
	if err != nil {
		return "", fmt.Errorf("%w: deploying the split: %v", ErrChainUnavailable, err)
	}
	wait, cancel := context.WithTimeout(ctx, h.wait)
	defer cancel()
	for {
		out, err := h.chain.Outcome(wait, tx.Hash, "")
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
