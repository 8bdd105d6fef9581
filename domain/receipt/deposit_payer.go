package receipt

import (
	"math/big"
	"strconv"
	"strings"

	"github.com/payledger/payledger/domain/money"
)

// payer is the wallet a chain payment of s names as its buyer (Payment.BuyerWallet: the payer
// the status read, the webhook and the export show, the wallet the users projection credits XP
// to): the sender whose counted transfers cover the largest share of the requirement, each
// token against its own threshold as Covered judges it. On a tie the completing transfer's
// sender (completing) wins, else the sender seen first. The completing transfer alone named the
// payer before: anyone may send to a deposit address the payment page shows, so a stranger who
// sent the last cents of a receipt a customer had underpaid (an exchange's withdrawal fee, say)
// was its buyer, took its XP and was the wallet the merchant was told paid.
func (s State) payer(completing Credit) string {
	if s.soleSender(completing.Sender) {
		return completing.Sender // no other sender to weigh: the shares would name it too
	}
	return s.payerByShares(completing)
}

// soleSender says whether every counted transfer of s was sent by sender (without case): the
// case of almost every receipt, paid by one wallet. Weighing the senders' shares was a third of
// a deposit's confirming decision (big rationals per transfer), paid by each of a block's
// receipts (issue 38 item 2).
func (s State) soleSender(sender string) bool {
	for _, c := range s.Credits {
		if c.Counts() && !strings.EqualFold(c.Sender, sender) {
			return false
		}
	}
	return true
}

// payerByShares is payer weighing each sender's share of the requirement.
func (s State) payerByShares(completing Credit) string {
	type part struct {
		sender   string // as the first of its transfers wrote it
		token    string
		decimals uint8
		units    *big.Int
	}
	var parts []*part // per sender (without case), token and decimals, in the order first seen
	byKey := map[string]*part{}
	for _, c := range s.Credits {
		units, ok := new(big.Int).SetString(c.AmountUnits, 10)
		if !c.Counts() || !ok {
			continue
		}
		key := strings.ToLower(c.Sender) + "|" + strings.ToUpper(c.Token) + "|" + strconv.Itoa(int(c.Decimals))
		p := byKey[key]
		if p == nil {
			p = &part{sender: c.Sender, token: c.Token, decimals: c.Decimals, units: new(big.Int)}
			parts, byKey[key] = append(parts, p), p
		}
		p.units.Add(p.units, units)
	}
	var senders []string
	shares := map[string]*big.Rat{}
	for _, p := range parts {
		r, err := s.requiredIn(p.token)
		if err != nil || r.Amount.Sign() <= 0 {
			continue // covers nothing, as in coveredShare
		}
		threshold := new(big.Rat).Mul(r.Amount, new(big.Rat).SetInt(money.Pow10(p.decimals)))
		threshold.Mul(threshold, big.NewRat(int64(10000-r.ToleranceBps), 10000))
		key := strings.ToLower(p.sender)
		if shares[key] == nil {
			shares[key] = new(big.Rat)
			senders = append(senders, p.sender)
		}
		shares[key].Add(shares[key], new(big.Rat).Quo(new(big.Rat).SetInt(p.units), threshold))
	}
	best, bestShare := completing.Sender, shares[strings.ToLower(completing.Sender)]
	for _, sender := range senders {
		if share := shares[strings.ToLower(sender)]; bestShare == nil || share.Cmp(bestShare) > 0 {
			best, bestShare = sender, share
		}
	}
	return best
}
