package settlement

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/domain/split"
)

// distPart is one token a receipt's payees are paid in from its split: the group it is released
// with and the key its covers are claimed under (the ledger's receipt column).
type distPart struct {
	g   *distGroup
	key string
}

// otherTokenKey is the cover key of a token swept for receipt id other than its paid one. The
// paid token keeps the receipt's id (covers claimed before stop 64 stay valid); the other tokens
// need keys of their own, since a receipt is covered at most once per payee and key. Receipt ids
// are letters, digits, _ and - (commands.CreateReceiptHandler), so "#" cannot meet another id.
func otherTokenKey(id, symbol string) string { return id + "#" + symbol }

// otherSweptTokens is, in name order, the tokens swept for s into its split other than paid: a
// card payment of an underpaid receipt's rest makes the processor's USDC the receipt's payment,
// while the part sent before in USDT or ETH was swept to the split too. Nil without sweeps.
func otherSweptTokens(s *receipt.State, paid string) []string {
	if s == nil {
		return nil
	}
	var out []string
	for _, w := range s.Sweeps {
		if w.Token != paid && !slices.Contains(out, w.Token) {
			out = append(out, w.Token)
		}
	}
	slices.Sort(out)
	return out
}

// partsOf adds receipt r's tokens to the pass's groups and returns its parts, the paid token's
// first; ok false when the paid token is one the chain does not know (r stays paid, as before).
// Another swept token the chain no longer knows (CHAIN_TOKENS changed since its sweep) cannot be
// released by the service: it is left to the payees' own release rather than holding r paid.
func (h *DistributeSplitsHandler) partsOf(r PaidReceipt, sp split.State, swept *receipt.State, index map[[2]string]*distGroup, groups *[]*distGroup) ([]distPart, bool) {
	paid := cmp.Or(r.Token, DefaultProcessorToken)
	var parts []distPart
	for i, symbol := range append([]string{paid}, otherSweptTokens(swept, paid)...) {
		token, ok := h.sender.chain.Token(symbol)
		if !ok {
			if i == 0 {
				return nil, false
			}
			continue
		}
		k := [2]string{sp.Address, symbol}
		g := index[k]
		if g == nil {
			g = &distGroup{split: sp.Address, symbol: symbol, token: token, recipients: sp.Recipients}
			index[k] = g
			*groups = append(*groups, g)
		}
		key := r.ReceiptID
		if i > 0 {
			key = otherTokenKey(r.ReceiptID, symbol)
		}
		g.keys = append(g.keys, key)
		parts = append(parts, distPart{g: g, key: key})
	}
	return parts, true
}

// released says whether every payee of g is covered under covers by a mined release or had
// nothing due.
func released(g *distGroup, covers map[string]Cover) bool {
	for _, p := range g.recipients {
		cv, ok := covers[p.Address]
		if !ok || (cv.Hash != "" && cv.Status != TxMined) {
			return false
		}
	}
	return true
}

// errReceiptUndecodable marks an event of a receipt's stream this build cannot read
// (receipt.ErrUnknownEvent, or data that does not fit its type): the receipt's own, told from a
// store failure by type.
var errReceiptUndecodable = errors.New("receipt event does not decode")

// readableReceipt is the receipt aggregate with its decoding failures marked errReceiptUndecodable
// (it folds through receipt.Folder, in time linear in the receipt's credits).
var readableReceipt = commands.ReceiptAggregate(func(err error) error {
	return fmt.Errorf("%w: %w", errReceiptUndecodable, err)
})

// loadReceipt is commands.LoadReceipt with decoding failures marked. Errors:
// errReceiptUndecodable, wrapped store errors.
func (h *DistributeSplitsHandler) loadReceipt(ctx context.Context, id string) (receipt.State, error) {
	l, err := commands.Load(ctx, h.store, commands.ReceiptStream(id), readableReceipt, receipt.State{})
	return l.State, err
}

// undecodable is err, the failure of a write to receipt id, marked errReceiptUndecodable when the
// receipt's stream cannot be read (found by reading it again: the pipeline does not mark it).
func (h *DistributeSplitsHandler) undecodable(ctx context.Context, id string, err error) error {
	if _, lerr := h.loadReceipt(ctx, id); errors.Is(lerr, errReceiptUndecodable) {
		return lerr
	}
	return err
}

// unreadableReceipt is the error of a pass that passed over receipt r: its stream holds an event
// this build cannot read (a newer build's, during a rollback or a rolling upgrade), so whether it
// is still paid, and where its funds are, is not known. It is that receipt's alone: before, it
// failed every pass, and no receipt was released or reconciled. It stays paid; the error is
// logged once every unreadableLogEvery per receipt and every pass returns it, so /healthz shows
// the worker degraded while it lasts.
func (h *DistributeSplitsHandler) unreadableReceipt(ctx context.Context, id string, err error) error {
	stream := receipt.Stream(id)
	err = fmt.Errorf("receipt %s (stream %s) cannot be read; it stays paid: %w", id, stream, err)
	if now := h.now(); h.unreadableLogged.of(stream, now) == nil {
		h.unreadableLogged.put(stream, now.Add(unreadableLogEvery), err)
		zerolog.Ctx(ctx).Error().Err(err).Str("receipt", id).Str("stream", stream).
			Msg("split distribution: the receipt holds an event this build cannot read; it stays paid, the other receipts are released")
	}
	return err
}
