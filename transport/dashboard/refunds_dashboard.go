package dashboard

import (
	"errors"
	"net/url"
	"strings"

	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
)

// dashWalletRefund is what "Refund with wallet" needs on a receipt's page (DESIGN 10, issue 41):
// where the refund goes (the customer, a sender of the receipt's payment), in which token, and
// the rate to turn the amount field into base units: ceil(cents × TotalUnits / TotalCents),
// never less than the refund verifier asks.
type dashWalletRefund struct {
	To, Token, TokenAddress string // TokenAddress "" for ETH
	Decimals                uint8
	TotalCents              int64
	TotalUnits              string
	ChainID                 int64
	// Excess is what "Refund the excess" sends and records as a refund of the excess (excess:
	// true): the receipt's unrefunded excess, apart from the order's refundable amount.
	Excess string
	// MaxCents is the most a refund with a hash may be for now (receipt.ClaimableCents):
	// refund.js refuses a larger amount before the wallet sends anything, since the API's refusal
	// would come only after the money left the merchant's wallet.
	MaxCents int64
}

// dashRefund is one refund as the receipt's page lists it. Of names what a refund returns when
// it is not the order's (the excess, funds received before the payment, a processor payment the
// receipt does not count): those are not in "Refunded", which is the order's alone.
type dashRefund struct {
	Amount, Token, TokenAmount, To, From, Hash, State, Reason, Proof, TxURL, Of string
}

// refundOf is what refund r of st returns when it is not the order's, "" when it is.
func refundOf(st receipt.State, r receipt.RefundRecord) string {
	switch {
	case r.Unknown != nil:
		return ""
	case r.OfExcess:
		return "of the excess"
	case r.OfFunds && st.Payment != nil:
		return "of funds received before the payment"
	case r.OfProcessor:
		return "of a processor payment the receipt does not count"
	}
	return ""
}

// dashRefundsOf fills the page's refund list and, for a refundable receipt paid on chain (or a
// failed one holding funds that paid nothing) in a token the payment chain knows, the wallet
// refund.
func (s *dash) dashRefundsOf(v *dashReceiptView, st receipt.State) {
	cur := st.Receipt.Currency
	for _, r := range st.Refunds {
		d := dashRefund{Amount: dashMoney(money.Cents(r.AmountCents), cur), Token: r.Token, TokenAmount: r.TokenAmount(),
			To: first(r.Recipient, r.RefundTo), From: r.Sender, Hash: r.TransactionHash, State: r.State, Reason: r.Reason, Proof: r.Proof, Of: refundOf(st, r)}
		if r.State == receipt.RefundStateRefused {
			d.Reason = r.RefusedReason
		}
		if r.Unknown != nil { // raw units of a contract, never money
			u, _ := st.UnknownTokenOf(*r.Unknown)
			d.Amount, d.To = "unconfigured token", first(r.Recipient, r.RefundTo, u.Sender)
		}
		if r.State == receipt.RefundStateProcessed {
			d.TxURL = explorerTx(s.explorer(), r.TransactionHash)
		}
		v.RefundPending = v.RefundPending || r.State == receipt.RefundStateClaimed
		v.Refunds = append(v.Refunds, d)
	}
	if s.ui != nil {
		v.RefundJS = s.ui.Asset("refund.js")
	}
	// Where only a refund with a hash is taken (a refund already requested, a failed receipt's
	// funds that paid nothing), the form stays for the wallet refund alone, with the hash
	// required: the domain would refuse a request without one (receipt.CanClaimRefund).
	// A refund of the excess already sent is recorded by its hash in a form of its own (excess:
	// true), whatever the order takes and whether or not the wallet refund is offered: the order's
	// form posts order refunds, and the wallet's button keeps an unrecorded hash only until the
	// page is left.
	if ex := st.ExcessUnrefundedCents(); ex > 0 && canClaimExcess(st) {
		v.ExcessClaim = money.Cents(ex).String()
	}
	if c, _ := st.ProcessorToRefundCents(); c > 0 && canClaimProcessor(st) {
		v.ProcessorClaim = money.Cents(c).String()
	}
	claimOnly := !v.CanRefund && receipt.CanClaimRefund(st)
	if !v.CanRefund && !claimOnly {
		// An order refunded in whole may still owe its excess (stop 70): offered alone, with a hash.
		if v.ExcessOnly = v.ExcessClaim != ""; v.ExcessOnly {
			if w := s.walletRefundOf(st); w != nil && w.Excess != "" {
				v.WalletRefund = w
			}
		}
		return
	}
	if v.WalletRefund = s.walletRefund(st); v.WalletRefund != nil && claimOnly {
		v.CanRefund, v.RefundHashRequired, v.Unrefunded = true, true, money.Cents(st.ClaimableCents()).String()
	}
}

// walletRefund is the wallet refund of a receipt paid on chain (or a failed one holding funds
// that paid nothing) in a token the payment chain knows, to its first payer; nil otherwise, and
// nil while a refund with a hash would be refused (receipt.CanClaimRefund: the receipt's open
// claims, those of unconfigured tokens' refunds included, at receipt.MaxOpenRefundClaims): the
// wallet would send the money first and the claim of its hash be refused after.
func (s *dash) walletRefund(st receipt.State) *dashWalletRefund {
	if !receipt.CanClaimRefund(st) {
		return nil
	}
	return s.walletRefundOf(st)
}

// walletRefundOf is walletRefund whether or not the order takes a refund with a hash now; its
// Excess is set only while a refund of the excess with a hash would be taken (canClaimExcess).
func (s *dash) walletRefundOf(st receipt.State) *dashWalletRefund {
	to, tokens := st.RefundRecipients(), st.PaidTokens()
	if !(st.PaidOnChain() || st.Status == receipt.StatusFailed) || len(to) == 0 || len(tokens) == 0 {
		return nil
	}
	tok, ok := s.cfg.PaymentChain.Token(tokens[0])
	if !ok {
		return nil
	}
	units, err := st.RefundTotalUnits(tok.Symbol, tok.Decimals)
	if err != nil {
		return nil
	}
	w := &dashWalletRefund{To: to[0], Token: tok.Symbol, TokenAddress: tok.Address, Decimals: tok.Decimals, TotalCents: int64(st.Receipt.Total),
		TotalUnits: units.String(), ChainID: s.cfg.PaymentChain.ChainID, MaxCents: st.ClaimableCents()}
	// Not min(ExcessCents, Unrefunded): the excess is refunded apart from the order (stop 70),
	// so the order's refunds neither cap it nor are consumed by it.
	if ex := st.ExcessUnrefundedCents(); ex > 0 && canClaimExcess(st) {
		w.Excess = money.Cents(ex).String()
	}
	return w
}

// excessEligibilityHash stands for the hash of a refund of the excess when asking whether one
// would be taken (as receipt.CanClaimRefund asks for the order's).
const excessEligibilityHash = "0x0000000000000000000000000000000000000000000000000000000000000000"

// canClaimExcess reports whether a refund of the excess with its hash would be taken now: the
// wallet sends the money before the claim is posted, so it is offered only then.
func canClaimExcess(st receipt.State) bool {
	_, err := receipt.RequestRefund(st, receipt.RefundOrder{Reason: "eligibility", TransactionHash: excessEligibilityHash, Excess: true})
	return err == nil || errors.Is(err, receipt.ErrRefundHashUsed)
}

// canClaimProcessor reports whether a refund of the processor payments the receipt does not
// count, with a hash, would be taken now (receipt.RequestRefund with Processor: the amounts owed
// are known, the receipt's refund records have room).
func canClaimProcessor(st receipt.State) bool {
	_, err := receipt.RequestRefund(st, receipt.RefundOrder{Reason: "eligibility", TransactionHash: excessEligibilityHash, Processor: true})
	return err == nil || errors.Is(err, receipt.ErrRefundHashUsed)
}

// publicExplorers are the public block explorers of the chains that have a well-known one, used
// when EXPLORER_URL is not set.
var publicExplorers = map[int64]string{1: "https://etherscan.io", 8453: "https://basescan.org", 84532: "https://sepolia.basescan.org",
	11155111: "https://sepolia.etherscan.io"}

// explorer is where the receipt page links every transaction of the payment chain (transfers,
// unconfigured tokens, refunds alike): EXPLORER_URL when set, else the chain's public explorer,
// else "" (the development chain, or a chain without a known one): no links.
func (s *dash) explorer() string {
	if e := strings.TrimRight(s.cfg.PaymentChain.ExplorerURL, "/"); e != "" {
		return e
	}
	return publicExplorers[s.cfg.PaymentChain.ChainID]
}

// explorerTx is a transaction's page on explorer ("" without an explorer or a hash).
func explorerTx(explorer, hash string) string {
	if explorer == "" || hash == "" {
		return ""
	}
	return explorer + "/tx/" + url.PathEscape(strings.ToLower(hash))
}
