package commands_test

import (
	"strings"
	"testing"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
)

// A hint naming a transfer of nothing to the receipt's own deposit address is refused, as the
// deposit scan records no such transfer: anyone can log a 0-token Transfer to any address (no
// allowance needed), and the hint made the receipt pending with that hash and its claimed buyer.
func TestAHintOfNothingIsRefused(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t)
	chainTx, owners := &memChain{txs: map[string]commands.MinedTransaction{}}, &memOwners{credited: map[string][]string{}, deposits: map[string]string{}}
	h := commands.NewSubmitWalletPaymentHandler(e.store, hintStore(t), owners, chainTx, e.now)
	deposit := strings.ToLower(depositOf(42))
	for i, credit := range []commands.ChainCredit{{To: deposit, Token: "USDC", AmountUnits: "0"}, {To: deposit, Token: "ETH", LogIndex: -1, AmountUnits: "0"}} {
		hash := "0x" + strings.Repeat(string(rune('a'+i)), 64)
		chainTx.txs[hash] = commands.MinedTransaction{Mined: true, BlockNumber: 7, Credits: []commands.ChainCredit{credit}}
		id := e.depositReceipt(900, depositOf(42))
		_, err := h.Handle(e.ctx, commands.SubmitWalletPayment{ReceiptID: id, Token: credit.Token, TransactionHash: hash, BuyerWallet: "0x" + strings.Repeat("cd", 20)})
		wantRefusal(t, err, "invalid_input", "")
		if got := e.history(id); got != receipt.EventGenerated {
			t.Fatalf("%s of nothing: history %s", credit.Token, got)
		}
	}
}
