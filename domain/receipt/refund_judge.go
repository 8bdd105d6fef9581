package receipt

import (
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/payledger/payledger/domain/money"
)

// ChainTransfer is one movement of value a transaction shows: an ERC-20 Transfer log of a
// configured token, or the transaction's own ETH value; or a Transfer log of a token not
// configured (Token "", Contract only), which counts for an unknown transfer's refund only.
type ChainTransfer struct {
	Token       string // symbol; "" for a token not configured
	Contract    string // the log's contract, lower case; "" for ETH
	Decimals    uint8
	From        string // lower case
	To          string // lower case
	AmountUnits string // base units, a decimal integer
}

// RefundEvidence is what the chain shows, at depth, of the transaction a refund claims.
type RefundEvidence struct {
	TransactionHash string
	Succeeded       bool
	Transfers       []ChainTransfer
	BlockNumber     uint64
	BlockHash       string
	At              int64
}

// JudgeRefund decides whether the chain supports the claim of ev.TransactionHash: a successful
// transaction moving, in one token the receipt was paid in, to its payers (or the refundTo the
// merchant named), at least the refund's amount in that token at the receipt's paid rate; the
// stable tokens it was paid in count together, one to one, as its payment counted them
// (judgeStableRefund), and a priced token with another paid token counts by the share of each
// one's required amount, as its payment counted them (judgeMixedRefund). ok:
// the RefundProcessed to record (ProcessRefund); else reason says what the chain shows instead.
func JudgeRefund(s State, ev RefundEvidence) (p RefundProcessed, reason string, ok bool) {
	claim, found := s.CountedRefund(ev.TransactionHash)
	if !found {
		return RefundProcessed{}, "no refund claims this transaction", false
	}
	if !ev.Succeeded {
		return RefundProcessed{}, "the transaction failed on chain (reverted)", false
	}
	if claim.Unknown != nil {
		return judgeUnknownRefund(s, claim, ev)
	}
	to := s.RefundRecipients()
	if claim.RefundTo != "" {
		to = append(to, claim.RefundTo)
	}
	paid, senders := s.PaidTokens(), s.refundSenders()
	if p, reason, ok, applies := judgeMixedRefund(s, claim, ev, to, senders); applies { // a priced token with another (stop 68)
		return p, reason, ok
	}
	p, short, ok := judgeStableRefund(s, claim, ev, to, senders)
	if ok {
		return p, "", true
	}
	for _, token := range paid {
		if IsStable(token) { // judged together, above
			continue
		}
		sum, recipient, decimals := sumTo(ev.Transfers, token, to, senders)
		if sum == nil {
			continue
		}
		want, err := s.RefundUnits(claim.AmountCents, token, decimals)
		if err != nil {
			return RefundProcessed{}, "the refund cannot be priced in " + token + ": " + err.Error(), false
		}
		if sum.Cmp(want) < 0 {
			short = fmt.Sprintf("the transaction sends %s base units of %s back (net of what it moves away from the same addresses), less than the refund's %s", sum, token, want)
			continue
		}
		return RefundProcessed{TransactionHash: claim.TransactionHash, Token: token, AmountUnits: sum.String(), Decimals: decimals,
			Recipient: recipient, Sender: backFrom(ev.Transfers, ofToken(token), to, senders), BlockNumber: ev.BlockNumber, BlockHash: ev.BlockHash,
			ProcessedBy: "chain", At: ev.At}, "", true
	}
	if short != "" {
		return RefundProcessed{}, short, false
	}
	return RefundProcessed{}, fmt.Sprintf("the transaction sends no %s to a payer of the receipt (%s)%s%s", strings.Join(paid, " or "),
		strings.Join(s.RefundRecipients(), ", "), refundToNote(claim.RefundTo), notBackNote(ev.Transfers, senders)), false
}

// notBackNote tells, when some transfer was left out for its sender, that the customer's own
// transfers do not count, naming the sender: a merchant whose wallet topped up an underpayment
// is a payer of the receipt, and its refund from that wallet is refused (stop 64), which the
// merchant must be able to tell from the reason.
func notBackNote(transfers []ChainTransfer, senders []string) string {
	for _, t := range transfers {
		switch {
		case goesBack(t, senders):
		case strings.EqualFold(t.From, t.To):
			return " (a transfer to its own sender is not a refund)"
		default:
			return fmt.Sprintf(" (%s paid the receipt, or is its deposit or split: a transfer from it is not a refund; a refund is sent from another wallet)",
				strings.ToLower(t.From))
		}
	}
	return ""
}

func refundToNote(refundTo string) string {
	if refundTo == "" {
		return ""
	}
	return " or to refundTo " + refundTo
}

// judgeStableRefund judges the claim in the stable tokens the receipt was paid in, as one amount
// (stop 67): a payment counts USDC and USDT one to one, so a receipt paid 5 USDC + 5 USDT and
// refunded in one transaction sending both back is refunded, where judging each token alone
// refused it. Each token is netted for the customer's addresses (netFlows) and the nets add up at
// the largest of their decimals: what one token pulls back from the customer is taken off what
// another sends, and each transfer counts once, in its own token. A refund sent in one of them
// alone reads as before (its token, its units); sent in several, Token names them joined by "+"
// (in StableTokens' order), AmountUnits is the net sum and Parts says what each brought. ok
// false with reason "" when no stable token goes back; a reason when what goes back is short.
func judgeStableRefund(s State, claim RefundRecord, ev RefundEvidence, to, senders []string) (RefundProcessed, string, bool) {
	type flow struct {
		part RefundPart
		net  *big.Int
		back bool
	}
	var flows []flow
	var decimals uint8
	paid := s.PaidTokens()
	for _, token := range StableTokens { // in their own order: one mix is always named alike
		if !slices.Contains(paid, token) {
			continue
		}
		net, first, d, moved := netOf(ev.Transfers, token, to, senders)
		if !moved {
			continue
		}
		part := RefundPart{Token: token, AmountUnits: net.String(), Decimals: d, Recipient: first, Sender: backFrom(ev.Transfers, ofToken(token), to, senders)}
		flows = append(flows, flow{part: part, net: net, back: first != ""})
		decimals = max(decimals, d)
	}
	sum, token := new(big.Int), ""
	var parts []RefundPart
	for _, f := range flows {
		sum.Add(sum, new(big.Int).Mul(f.net, money.Pow10(decimals-f.part.Decimals)))
		if f.back {
			parts = append(parts, f.part)
			token = strings.TrimPrefix(token+"+"+f.part.Token, "+")
		}
	}
	if len(parts) == 0 {
		return RefundProcessed{}, "", false
	}
	want, err := s.RefundUnits(claim.AmountCents, parts[0].Token, decimals) // every stable token is required alike
	if err != nil {
		return RefundProcessed{}, "the refund cannot be priced in " + parts[0].Token + ": " + err.Error(), false
	}
	if sum.Cmp(want) < 0 {
		return RefundProcessed{}, fmt.Sprintf("the transaction sends %s base units of %s back (net of what it moves away from the same addresses), less than the refund's %s", sum, token, want), false
	}
	if len(parts) == 1 {
		parts = nil
	}
	recipient, sender := "", ""
	for _, f := range flows {
		if f.back && recipient == "" {
			recipient, sender = f.part.Recipient, f.part.Sender
		}
	}
	return RefundProcessed{TransactionHash: claim.TransactionHash, Token: token, AmountUnits: sum.String(), Decimals: decimals, Parts: parts,
		Recipient: recipient, Sender: sender, BlockNumber: ev.BlockNumber, BlockHash: ev.BlockHash, ProcessedBy: "chain", At: ev.At}, "", true
}

// netOf is what transfers of token move, net, to the addresses to (netFlows): first is "" when
// nothing goes back; moved is false when nothing moves to or from them.
func netOf(transfers []ChainTransfer, token string, to, senders []string) (net *big.Int, first string, decimals uint8, moved bool) {
	of := func(t ChainTransfer) bool {
		if t.Token == "" || !strings.EqualFold(t.Token, token) {
			return false
		}
		decimals = t.Decimals
		return true
	}
	in, out, first := netFlows(transfers, of, to, senders)
	if in == nil && out.Sign() == 0 {
		return nil, "", decimals, false
	}
	if in == nil {
		in = new(big.Int)
	}
	return in.Sub(in, out), first, decimals, true
}

// sumTo is what transfers of token move, net, back to the addresses to (netBack), the first
// such recipient, and the token's decimals; nil when none goes back.
func sumTo(transfers []ChainTransfer, token string, to, senders []string) (*big.Int, string, uint8) {
	var decimals uint8
	of := func(t ChainTransfer) bool {
		if t.Token == "" || !strings.EqualFold(t.Token, token) {
			return false
		}
		decimals = t.Decimals // every transfer of one token has its decimals
		return true
	}
	sum, first := netBack(transfers, of, to, senders)
	return sum, first, decimals
}
