package receipt

import (
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/payledger/payledger/domain/money"
)

// A refund in a priced token and another token the receipt was paid in (stop 68): a 10.00
// receipt paid 5 USDC + ETH worth 5.00, refunded the same way in one transaction, was refused:
// each priced token was judged alone, the stable ones together (judgeStableRefund), and neither
// alone brought the whole refund back. It is judged as the payment was (coveredShare): each paid
// token's net flow to the customer's addresses (netOf) is worth its share of that token's own
// required amount (requiredIn: one to one for a stable token, the receipt's quote for a priced
// one), and the shares, times the total, must come to the claim's cents, exactly (no rounding of
// base units, no tolerance: the single-token judges ask for the rounded amount, at most one base
// unit less). The quote is the receipt's latest, the one its payment was judged at: Covered and
// AmountReceived value every credit at it, and a settled receipt takes no new quote (Quote). A
// failed receipt may be quoted again (a residual of the pay area, docs/decisions.md, stop 67).
// The judge applies when a priced token moves to or from the customer's addresses together with
// another paid token, so what the transaction pulls back from the customer in one paid token is
// taken off what it sends in another, as among the stable tokens (a refund in ETH that pulled as
// much USDC back from the customer was proven). The event names the tokens that went back joined
// by "+" (stable ones in StableTokens' order, then the priced ones in PaidTokens' order) with
// Parts saying what each brought; AmountUnits and Decimals stay empty: there is no one amount of
// two currencies, so the refund's amount reads null (its parts keep the figures).

// mixedFlow is one paid token's net flow to the customer's addresses in a refund's transaction.
type mixedFlow struct {
	part RefundPart
	net  *big.Int
	back bool // something of it went back (part.Recipient is set)
}

// judgeMixedRefund judges the claim when a priced token moves with another paid token (above);
// applies is false when it does not, and the other judges decide.
func judgeMixedRefund(s State, claim RefundRecord, ev RefundEvidence, to, senders []string) (p RefundProcessed, reason string, ok, applies bool) {
	flows := mixedFlows(s, ev, to, senders)
	priced, back := false, false
	for _, f := range flows {
		priced = priced || !IsStable(f.part.Token)
		back = back || f.back
	}
	if len(flows) < 2 || !priced || !back {
		return RefundProcessed{}, "", false, false
	}
	worth := new(big.Rat) // in cents of the total
	var parts []RefundPart
	var names []string
	for _, f := range flows {
		req, err := s.requiredIn(f.part.Token)
		if err != nil || req.Amount.Sign() <= 0 {
			return RefundProcessed{}, fmt.Sprintf("the refund cannot be priced in %s: %v", f.part.Token, err), false, true
		}
		share := new(big.Rat).SetFrac(f.net, money.Pow10(f.part.Decimals))
		share.Quo(share, req.Amount)
		worth.Add(worth, share.Mul(share, new(big.Rat).SetInt64(int64(s.Receipt.Total))))
		if f.back {
			parts, names = append(parts, f.part), append(names, f.part.Token)
		}
	}
	if worth.Cmp(new(big.Rat).SetInt64(claim.AmountCents)) < 0 {
		return RefundProcessed{}, fmt.Sprintf("the transaction sends %s back (net of what it moves away from the same addresses), worth %s of the refund's %s at the rates the receipt was paid at",
			mixedSummary(flows), centsDown(worth), money.Cents(claim.AmountCents)), false, true
	}
	if len(parts) == 1 { // one token went back, others only left the customer: it reads as that token
		return RefundProcessed{TransactionHash: claim.TransactionHash, Token: parts[0].Token, AmountUnits: parts[0].AmountUnits, Decimals: parts[0].Decimals,
			Recipient: parts[0].Recipient, Sender: parts[0].Sender, BlockNumber: ev.BlockNumber, BlockHash: ev.BlockHash, ProcessedBy: "chain", At: ev.At}, "", true, true
	}
	return RefundProcessed{TransactionHash: claim.TransactionHash, Token: strings.Join(names, "+"), Parts: parts, Recipient: parts[0].Recipient,
		Sender: parts[0].Sender, BlockNumber: ev.BlockNumber, BlockHash: ev.BlockHash, ProcessedBy: "chain", At: ev.At}, "", true, true
}

// mixedFlows are the net flows of the paid tokens that move to or from the customer's
// addresses, stable tokens first in StableTokens' order, then the priced ones in PaidTokens'.
func mixedFlows(s State, ev RefundEvidence, to, senders []string) []mixedFlow {
	paid := s.PaidTokens()
	order := make([]string, 0, len(paid))
	for _, t := range StableTokens {
		if slices.Contains(paid, t) {
			order = append(order, t)
		}
	}
	for _, t := range paid {
		if !IsStable(t) {
			order = append(order, t)
		}
	}
	var flows []mixedFlow
	for _, token := range order {
		net, first, d, moved := netOf(ev.Transfers, token, to, senders)
		if moved {
			part := RefundPart{Token: token, AmountUnits: net.String(), Decimals: d, Recipient: first, Sender: backFrom(ev.Transfers, ofToken(token), to, senders)}
			flows = append(flows, mixedFlow{part: part, net: net, back: first != ""})
		}
	}
	return flows
}

// mixedSummary writes the flows as "5000000 base units of USDC and 1000 of ETH".
func mixedSummary(flows []mixedFlow) string {
	out := make([]string, len(flows))
	for i, f := range flows {
		out[i] = f.net.String() + " base units of " + f.part.Token
		if i > 0 {
			out[i] = f.net.String() + " of " + f.part.Token
		}
	}
	return strings.Join(out, " and ")
}

// centsDown is worth (cents, maybe fractional or negative) as money, rounded toward zero.
func centsDown(worth *big.Rat) money.Cents {
	return money.Cents(new(big.Int).Quo(worth.Num(), worth.Denom()).Int64())
}
