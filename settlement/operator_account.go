package settlement

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/domain/onchain"
)

// SplitChain is the chain as the split commands use it: the operator's account (CHAIN_OPERATOR_KEY)
// and split contracts with the PaymentSplit ABI. Addresses are 0x hex; token "" is ETH, else an
// ERC-20 contract address. Signing never sends: Broadcast does, so that a transaction is recorded
// before it can be mined.
type SplitChain interface {
	OperatorAccount
	SplitReleases
	SplitCodeReader // what tells a configured split gone from a node behind its deployment
	// Token is the contract address of a payment token symbol ("ETH": "").
	Token(symbol string) (address string, ok bool)
	// SignDeploy signs the deployment of a split paying payees their shares in basis points.
	SignDeploy(ctx context.Context, nonce uint64, payees []string, sharesBps []int) (SignedTx, error)
	// Broadcast sends a signed transaction; sending one the node already has is not an error.
	Broadcast(ctx context.Context, raw []byte) error
	// Outcome is a mined transaction's result; nil (no error) while it is not mined. A release's
	// Released counts only the events of split (the contract it was sent to; "" for a deployment).
	Outcome(ctx context.Context, hash, split string) (*TxOutcome, error)
	// Replaced says whether the operator's transaction hash, signed at nonce, can no longer be
	// mined: it is in no block and the operator's nonce CHAIN_CONFIRMATIONS deep is past nonce.
	Replaced(ctx context.Context, hash string, nonce uint64) (bool, error)
	// SignCancel signs a transfer of nothing from the operator to itself at nonce, at current
	// fees: it takes the nonce of a transaction the node refuses for good.
	SignCancel(ctx context.Context, nonce uint64) (SignedTx, error)
	// Underpriced says whether the signed transaction raw cannot be mined at the newest block's
	// base fee (its fee cap is under it).
	Underpriced(ctx context.Context, raw []byte) (bool, error)
	// SignCancelOver signs SignCancel's transfer of nothing at the nonce of the signed
	// transaction stuck, with fees high enough to replace it in the node's pool.
	SignCancelOver(ctx context.Context, stuck []byte) (SignedTx, error)
	// SplitPayees is the payees of the split contract at split and their shares, in the
	// contract's order, at most limit+1 of them; ok false when the contract does not answer as a
	// splitter. Errors: the node's.
	SplitPayees(ctx context.Context, split string, limit int) (payees []string, shares []*big.Int, ok bool, err error)
}

// OperatorAccount is the operator's account (CHAIN_OPERATOR_KEY) as every operator use case sees
// it: splits and subscription charging.
type OperatorAccount interface {
	// Sender is the operator's address.
	Sender() string
	// PendingNonce is the node's next nonce of the operator, pending transactions included.
	PendingNonce(ctx context.Context) (uint64, error)
	// HasCode says whether a contract is deployed at address.
	HasCode(ctx context.Context, address string) (bool, error)
}

// deployedSplits remembers the split addresses seen holding a contract. Code, once there, stays;
// its absence is not remembered, since a node behind the chain, or a split configured while the
// chain was off, may show the code later. Its users call it one at a time.
type deployedSplits map[string]bool

// holdsCode reports whether split holds a contract, asking chain unless it was seen holding one.
func (d deployedSplits) holdsCode(ctx context.Context, chain OperatorAccount, split string) (bool, error) {
	if d[split] {
		return true, nil
	}
	ok, err := chain.HasCode(ctx, split)
	if err != nil {
		return false, fmt.Errorf("split %s: %w", split, err)
	}
	if ok {
		d[split] = true
	}
	return ok, nil
}

// SplitReleases reads and signs a split contract's releases.
type SplitReleases interface {
	// Releasable is what split owes payee in token.
	Releasable(ctx context.Context, split, token, payee string) (*big.Int, error)
	// SignRelease signs release(token, payee) (release(payee) for ETH) at nonce, gas estimated.
	SignRelease(ctx context.Context, nonce uint64, split, token, payee string) (SignedTx, error)
}

// SignedTx is a transaction signed by the operator and not yet sent.
type SignedTx = onchain.SignedTx

// TxOutcome is a mined transaction.
type TxOutcome = onchain.TxOutcome

// OperatorTx is a signed operator transaction as recorded.
type OperatorTx struct {
	ID      int64
	Sender  string
	Nonce   uint64
	Kind    string // deploy | release
	Hash    string
	Raw     []byte
	Split   string
	Token   string // symbol
	Payee   string
	Status  string // signed | mined | reverted
	Amount  string // base units, once mined
	GasUsed uint64
}

// Operator transaction kinds and statuses.
const (
	TxDeploy   = "deploy"
	TxRelease  = "release"
	TxSigned   = "signed"
	TxMined    = "mined"
	TxReverted = "reverted"
)

// Errors of OperatorLedger.Record.
var (
	ErrNonceTaken = errors.New("the nonce is recorded for another operator transaction")
	ErrCovered    = errors.New("another release already covers one of these receipts for this payee")
	// ErrReleasePending: a release of the same split and token to the same payee is signed and
	// not settled. It will pay out everything due when it is mined, so a second one would
	// revert (nothing due) after costing gas; and until it is settled, which release paid a
	// receipt is not known.
	ErrReleasePending = errors.New("a release of this split and token to this payee is not settled yet")
)

// Cover is how one payee of a receipt was paid: by a release (its hash, status and amount) or
// by nothing (Hash "": nothing was releasable).
type Cover struct {
	Hash   string
	Status string
	Amount string
}

// OperatorLedger keeps the operator's transactions and which release covers which receipt.
type OperatorLedger interface {
	// NextNonce is one past the highest nonce recorded for sender, 0 when none.
	NextNonce(ctx context.Context, sender string) (uint64, error)
	// Record stores tx (status signed) and claims covers for tx.Payee, atomically. Errors:
	// ErrNonceTaken, ErrCovered, ErrReleasePending (a release only), wrapped database errors.
	Record(ctx context.Context, tx OperatorTx, covers []string) (int64, error)
	// CoverReleased claims receipts for payee when nothing is releasable any more: their funds
	// left with an earlier release, the newest mined one of split and token to payee (none:
	// released by someone else, recorded without a transaction). Errors: ErrCovered.
	CoverReleased(ctx context.Context, split, token, payee string, receipts []string) error
	// Unsettled lists sender's transactions still signed, by nonce.
	Unsettled(ctx context.Context, sender string) ([]OperatorTx, error)
	// Settle records a mined transaction; a reverted one frees the receipts it covered.
	Settle(ctx context.Context, id int64, status, amount string, gasUsed uint64) error
	// Coverage returns, per receipt, its payees' covers.
	Coverage(ctx context.Context, receipts []string) (map[string]map[string]Cover, error)
}

// OperatorSender signs and sends the operator's transactions one at a time: a nonce is chosen,
// the transaction signed, recorded, and only then broadcast, under one mutex, so that deployments
// and distributions of this process never collide; the ledger's unique nonce per sender keeps
// other processes sharing the key apart.
type OperatorSender struct {
	chain  SplitChain
	ledger OperatorLedger
	mu     sync.Mutex

	// RefusedWait is how long the node must keep refusing a signed transaction, or holding it
	// unmined under the base fee, before it is replaced at its nonce (0: DefaultRefusedWait); a
	// refusal may pass (a full pool), and a spike too.
	RefusedWait time.Duration
	now         func() time.Time
	refusedMu   sync.Mutex
	refused     map[string]time.Time // hash: the first refusal seen by this process
	waiting     map[string]waitingTx // hash: found unmined by this process (replaceStuck)
}

// DefaultRefusedWait is OperatorSender.RefusedWait's default.
const DefaultRefusedWait = 10 * time.Minute

// NewOperatorSender returns the sender. It panics on a nil dependency.
func NewOperatorSender(chain SplitChain, ledger OperatorLedger) *OperatorSender {
	if chain == nil || ledger == nil {
		panic("settlement.NewOperatorSender: nil dependency")
	}
	return &OperatorSender{chain: chain, ledger: ledger, now: time.Now, refused: map[string]time.Time{}, waiting: map[string]waitingTx{}}
}

// WithClock sets the clock that times refusals (RefusedWait); call it before use.
func (o *OperatorSender) WithClock(now func() time.Time) *OperatorSender {
	o.now = now
	return o
}

// Chain is the chain the sender signs for.
func (o *OperatorSender) Chain() SplitChain { return o.chain }

// Ledger is where the sender records.
func (o *OperatorSender) Ledger() OperatorLedger { return o.ledger }

// Send signs a transaction with sign at the next free nonce, records it with covers, and
// broadcasts it. Errors: ErrCovered (nothing was sent), sign's, the ledger's, Broadcast's (the
// transaction is recorded: the next Settle sends it again).
func (o *OperatorSender) Send(ctx context.Context, tx OperatorTx, covers []string, sign func(nonce uint64) (SignedTx, error)) (OperatorTx, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	tx.Sender = o.chain.Sender()
	nonces := nonceSource{sender: tx.Sender, pending: o.chain.PendingNonce, ledger: o.ledger}
	txs, err := nonces.record(ctx, func(nonce uint64) ([]OperatorTx, error) {
		s, err := sign(nonce)
		if err != nil {
			return nil, err
		}
		signed := tx
		signed.Nonce, signed.Hash, signed.Raw, signed.Status = s.Nonce, s.Hash, s.Raw, TxSigned
		return []OperatorTx{signed}, nil
	}, func(txs []OperatorTx) (err error) {
		txs[0].ID, err = o.ledger.Record(ctx, txs[0], covers)
		return err
	})
	if err != nil {
		return tx, err
	}
	return txs[0], o.chain.Broadcast(ctx, txs[0].Raw)
}

// nonceSource hands out the operator's nonces: the higher of the node's pending nonce and the
// ledger's next, then counted here; a nonce another process recorded meanwhile (ErrNonceTaken)
// makes it read both again (at most five times). Splits and subscription charges share it, so
// no two kinds of work sign two transactions at one nonce.
type nonceSource struct {
	sender  string
	pending func(context.Context) (uint64, error)
	ledger  interface {
		NextNonce(ctx context.Context, sender string) (uint64, error)
	}
	next  uint64
	known bool
}

// sync reads the next nonce unless known.
func (n *nonceSource) sync(ctx context.Context) error {
	if n.known {
		return nil
	}
	pending, err := n.pending(ctx)
	if err != nil {
		return fmt.Errorf("pending nonce: %w", err)
	}
	next, err := n.ledger.NextNonce(ctx, n.sender)
	if err != nil {
		return err
	}
	n.next, n.known = max(pending, next), true
	return nil
}

// record signs with sign at the next nonces and records with save; it retries a taken nonce.
func (n *nonceSource) record(ctx context.Context, sign func(nonce uint64) ([]OperatorTx, error), save func([]OperatorTx) error) ([]OperatorTx, error) {
	for attempt := 0; ; attempt++ {
		if err := n.sync(ctx); err != nil {
			return nil, err
		}
		txs, err := sign(n.next)
		if err != nil {
			return nil, err
		}
		err = save(txs)
		if errors.Is(err, ErrNonceTaken) && attempt < 5 {
			n.known = false
			continue
		}
		if err != nil {
			return nil, err
		}
		n.next += uint64(len(txs))
		return txs, nil
	}
}

// Settle looks up every transaction still signed: mined ones are recorded (a reverted release
// frees its receipts for the next pass); one whose nonce another transaction of the key took
// (Replaced) is recorded as reverted, with no gas, so that a release frees its receipts too
// (operator_transactions has no dropped status); the others are broadcast again, the same
// bytes (resend: or the replacement sent while one was stuck). It returns how many were settled.
func (o *OperatorSender) Settle(ctx context.Context) (int, error) {
	txs, err := o.ledger.Unsettled(ctx, o.chain.Sender())
	if err != nil {
		return 0, err
	}
	o.forgetSettled(txs)
	settled := 0
	for _, tx := range txs {
		out, err := o.chain.Outcome(ctx, tx.Hash, tx.Split)
		if err != nil {
			return settled, fmt.Errorf("transaction %s: %w", tx.Hash, err)
		}
		if out == nil {
			gone, err := o.chain.Replaced(ctx, tx.Hash, tx.Nonce)
			if err != nil {
				return settled, fmt.Errorf("transaction %s: %w", tx.Hash, err)
			}
			if gone {
				// Rebroadcast, it got "nonce too low", taken as sent: it stayed open for good, and a
				// release blocked its payee (ErrReleasePending).
				zerolog.Ctx(ctx).Error().Str("tx", tx.Hash).Str("kind", tx.Kind).Uint64("nonce", tx.Nonce).Str("split", tx.Split).Str("payee", tx.Payee).
					Msg("operator transaction dropped: another transaction of the operator key took its nonce; a release's receipts are released again")
				if err := o.ledger.Settle(ctx, tx.ID, TxReverted, "", 0); err != nil {
					return settled, err
				}
				o.forgetRefusal(tx.Hash)
				settled++
				continue
			}
			if err := o.resend(ctx, tx); err != nil {
				return settled, err
			}
			continue
		}
		o.forgetRefusal(tx.Hash)
		status, amount := settlement(out)
		if err := o.ledger.Settle(ctx, tx.ID, status, amount, out.GasUsed); err != nil {
			return settled, err
		}
		settled++
	}
	return settled, nil
}

// settlement is how a mined transaction is recorded: mined or reverted, and what a release paid
// ("" for another kind).
func settlement(o *TxOutcome) (status, amount string) {
	status = TxMined
	if !o.Success {
		status = TxReverted
	}
	if o.Released != nil {
		amount = o.Released.String()
	}
	return status, amount
}

// replaceRefused replaces tx at its nonce with a transfer of nothing (SignCancel) when the node
// has refused it (a RefusedError: its fee over the node's cap, say) for RefusedWait and the
// operator's next nonce is its own: no other transaction holds the nonce, and every later
// operator transaction (sweeps, releases, charges, deployments) waits behind it. Once the
// replacement is deep, Replaced drops tx and its work is signed again at a new nonce. replaced
// says the replacement was sent, or the nonce is held by another transaction already.
func (o *OperatorSender) replaceRefused(ctx context.Context, tx OperatorTx, sendErr error) (replaced bool, err error) {
	var r interface{ Refused() bool }
	if !errors.As(sendErr, &r) || !r.Refused() || o.now().Sub(o.firstRefusal(tx.Hash)) < o.refusedWait() {
		return false, nil
	}
	next, err := o.chain.PendingNonce(ctx)
	if err != nil || next != tx.Nonce {
		return next > tx.Nonce, err // a lower nonce is missing first, or this one is held already
	}
	c, err := o.chain.SignCancel(ctx, tx.Nonce)
	if err != nil {
		return false, err
	}
	if err := o.chain.Broadcast(ctx, c.Raw); err != nil {
		return false, fmt.Errorf("replacing it at nonce %d: %w", tx.Nonce, err)
	}
	zerolog.Ctx(ctx).Error().Str("tx", tx.Hash).Str("kind", tx.Kind).Uint64("nonce", tx.Nonce).Str("replacement", c.Hash).
		Str("refusal", sendErr.Error()).Msg("operator transaction refused by the node since " + o.refusedWait().String() +
		": replaced at its nonce by a transfer of nothing to the operator, so the transactions after it can be mined; its work is signed again once the replacement is deep")
	return true, nil
}

// resend broadcasts tx again, or the transfer of nothing that replaces it while it is stuck
// (replaceStuck: the pool holds that one at the nonce, and refuses tx's bytes as underpriced);
// a refusal for good is replaced at its nonce after RefusedWait (replaceRefused).
func (o *OperatorSender) resend(ctx context.Context, tx OperatorTx) error {
	raw := o.waitingOf(tx).raw
	if err := o.chain.Broadcast(ctx, raw); err != nil {
		if replaced, rerr := o.replaceRefused(ctx, tx, err); rerr != nil || !replaced {
			return errors.Join(fmt.Errorf("rebroadcast %s: %w", tx.Hash, err), rerr)
		}
		return nil
	}
	return o.replaceStuck(ctx, tx)
}

// replaceStuck replaces tx at its nonce with a transfer of nothing at higher fees
// (SignCancelOver) when the node has held it unmined for RefusedWait and cannot mine it at the
// newest block's base fee (Underpriced: a gas-price spike over its fee cap): every later
// operator transaction (sweeps, releases, charges, deployments) waits behind its nonce, and
// sending the same bytes again never raises its fees. The replacement moves nothing, so it needs
// no ledger row: whichever of the two is mined, the row settles as before (tx mined, or, the
// replacement deep, Replaced drops tx and its work is signed again at a new nonce and at the fees
// of then). A replacement stuck in turn is replaced the same way RefusedWait later.
func (o *OperatorSender) replaceStuck(ctx context.Context, tx OperatorTx) error {
	w := o.waitingOf(tx)
	if o.now().Sub(w.since) < o.refusedWait() {
		return nil
	}
	low, err := o.chain.Underpriced(ctx, w.raw)
	if err != nil || !low {
		return err
	}
	c, err := o.chain.SignCancelOver(ctx, w.raw)
	if err != nil {
		return fmt.Errorf("transaction %s stuck under the base fee: %w", tx.Hash, err)
	}
	if err := o.chain.Broadcast(ctx, c.Raw); err != nil {
		return fmt.Errorf("transaction %s stuck under the base fee: replacing it at nonce %d: %w", tx.Hash, tx.Nonce, err)
	}
	o.refusedMu.Lock()
	o.waiting[tx.Hash] = waitingTx{since: o.now(), raw: c.Raw}
	o.refusedMu.Unlock()
	zerolog.Ctx(ctx).Error().Str("tx", tx.Hash).Str("kind", tx.Kind).Uint64("nonce", tx.Nonce).Str("replacement", c.Hash).
		Msg("operator transaction unmined since " + o.refusedWait().String() + " with its fee cap under the base fee: replaced at its nonce by a " +
			"transfer of nothing to the operator at higher fees, so the transactions after it can be mined; its work is signed again once the replacement is deep")
	return nil
}

// waitingTx is an operator transaction this process found unmined: since when (or since its
// last replacement was sent), and the bytes to send for it (its own, or that replacement's).
type waitingTx struct {
	since time.Time
	raw   []byte
}

// waitingOf is tx as waiting since this process first found it unmined (now, the first time).
func (o *OperatorSender) waitingOf(tx OperatorTx) waitingTx {
	o.refusedMu.Lock()
	defer o.refusedMu.Unlock()
	w, ok := o.waiting[tx.Hash]
	if !ok {
		w = waitingTx{since: o.now(), raw: tx.Raw}
		o.waiting[tx.Hash] = w
	}
	return w
}

// firstRefusal is when this process first saw the node refuse hash (now, the first time).
func (o *OperatorSender) firstRefusal(hash string) time.Time {
	o.refusedMu.Lock()
	defer o.refusedMu.Unlock()
	first, ok := o.refused[hash]
	if !ok {
		first = o.now()
		o.refused[hash] = first
	}
	return first
}

// forgetSettled forgets what this process remembers of transactions settled meanwhile (by
// another instance too): only unsettled are kept.
func (o *OperatorSender) forgetSettled(unsettled []OperatorTx) {
	open := make(map[string]bool, len(unsettled))
	for _, tx := range unsettled {
		open[tx.Hash] = true
	}
	o.refusedMu.Lock()
	defer o.refusedMu.Unlock()
	maps.DeleteFunc(o.refused, func(h string, _ time.Time) bool { return !open[h] })
	maps.DeleteFunc(o.waiting, func(h string, _ waitingTx) bool { return !open[h] })
}

// forgetRefusal forgets hash's refusal once it is settled.
func (o *OperatorSender) forgetRefusal(hash string) {
	o.refusedMu.Lock()
	defer o.refusedMu.Unlock()
	delete(o.refused, hash)
	delete(o.waiting, hash)
}

func (o *OperatorSender) refusedWait() time.Duration {
	if o.RefusedWait <= 0 {
		return DefaultRefusedWait
	}
	return o.RefusedWait
}
