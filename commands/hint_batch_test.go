package commands_test

import (
	"strings"
	"testing"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
)

// TestHintOfABatchTransferPaysEachReceipt: one transaction may pay several receipts' deposits (a
// batch transfer, one Transfer log each), which the deposit follower credits to each. A hint of
// it for one of them was 409 conflict as soon as another of them had been credited, though the
// transfer to this receipt's deposit is this receipt's: DESIGN 10 keeps 409 for a transfer
// credited to another receipt. A hash credited only elsewhere is still a conflict.
func TestHintOfABatchTransferPaysEachReceipt(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t)
	chainTx := &memChain{txs: map[string]commands.MinedTransaction{}}
	owners := &memOwners{credited: map[string][]string{}, deposits: map[string]string{}}
	submit := commands.NewSubmitWalletPaymentHandler(e.store, hintStore(t), owners, chainTx, e.now)
	a, b := e.depositReceipt(900, depositOf(95)), e.depositReceipt(900, depositOf(96))
	owners.deposits[strings.ToLower(depositOf(95))], owners.deposits[strings.ToLower(depositOf(96))] = a, b
	payer := "0x" + strings.Repeat("bb", 20)
	hash := "0x" + strings.Repeat("95", 32)
	chainTx.txs[hash] = commands.MinedTransaction{Mined: true, BlockNumber: 9, Credits: []commands.ChainCredit{
		{To: strings.ToLower(depositOf(95)), Token: "USDC", LogIndex: 0, AmountUnits: "9000000", From: payer},
		{To: strings.ToLower(depositOf(96)), Token: "USDC", LogIndex: 1, AmountUnits: "9000000", From: payer}}}
	owners.credited[hash] = []string{b, a} // the deposit follower credited both transfers

	out, err := submit.Handle(e.ctx, commands.SubmitWalletPayment{ReceiptID: a, Token: "USDC", TransactionHash: hash, BuyerWallet: payer})
	if err != nil || out.Status != receipt.StatusPending || out.AttemptID == "" {
		t.Fatalf("the hint of a batch transfer paying this receipt too: %+v, %v", out, err)
	}
	other := e.depositReceipt(900, depositOf(97))
	_, err = submit.Handle(e.ctx, commands.SubmitWalletPayment{ReceiptID: other, Token: "USDC", TransactionHash: hash, BuyerWallet: payer})
	wantRefusal(t, err, "conflict", "This transaction pays another receipt")
}
