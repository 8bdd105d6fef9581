package commands_test

import (
	"strings"
	"testing"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/readmodels"
)

// TestHintRecordsTheChainsSender: a payment hint's buyerWallet and token are the browser's word
// (anyone with the receipt's page may post the payer's hash naming any wallet). The submission a
// hint appends names the sender and token of the transfer to the deposit as the chain shows
// them, so the pending receipt's status read, webhook and export never show a wallet that did
// not pay: on the hint's own check and on the follower's, once its transaction is mined.
func TestHintRecordsTheChainsSender(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t)
	chainTx, _, submit, follow := e.hintHandlers(t)
	stranger, payer := "0x"+strings.Repeat("aa", 20), "0x"+strings.Repeat("bb", 20)
	mined := func(hash, deposit string) {
		chainTx.txs[hash] = commands.MinedTransaction{Mined: true, BlockNumber: 9, Credits: []commands.ChainCredit{
			{To: "0x" + strings.Repeat("77", 20), Token: "USDT", LogIndex: 0, AmountUnits: "5", From: stranger},
			{To: strings.ToLower(deposit), Token: "USDC", LogIndex: 1, AmountUnits: "9000000", From: strings.ToUpper(payer[:2]) + payer[2:]}}}
	}
	wantPayer := func(t *testing.T, id, hash string) {
		t.Helper()
		st := e.state(id)
		if a, _ := st.Current(); st.Status != receipt.StatusPending || a.BuyerWallet != payer || a.Token != "USDC" || a.TransactionHash != hash {
			t.Fatalf("the hinted receipt: %s, attempt %+v; want pending, the chain's sender %s and USDC", st.Status, a, payer)
		}
		if p := readmodels.ReceiptPayloadOf(st); p.BuyerWallet == nil || *p.BuyerWallet != payer || p.Token != "USDC" {
			t.Fatalf("the status read shows buyerWallet %v, token %s; want %s, USDC", p.BuyerWallet, p.Token, payer)
		}
	}

	t.Run("mined when posted", func(t *testing.T) {
		id, hash := e.depositReceipt(900, depositOf(70)), "0x"+strings.Repeat("71", 32)
		mined(hash, depositOf(70))
		out, err := submit.Handle(e.ctx, commands.SubmitWalletPayment{ReceiptID: id, Token: "ETH", TransactionHash: hash, BuyerWallet: stranger})
		if err != nil || out.AttemptID == "" {
			t.Fatalf("the hint: %+v, %v", out, err)
		}
		wantPayer(t, id, hash)
	})
	t.Run("mined later", func(t *testing.T) {
		id, hash := e.depositReceipt(900, depositOf(72)), "0x"+strings.Repeat("73", 32)
		if out, err := submit.Handle(e.ctx, commands.SubmitWalletPayment{ReceiptID: id, Token: "cbBTC", TransactionHash: hash, BuyerWallet: stranger}); err != nil || !out.Waiting {
			t.Fatalf("the hint before its transaction is mined: %+v, %v", out, err)
		}
		mined(hash, depositOf(72))
		if done, err := follow.Handle(e.ctx, commands.CheckPaymentHints{}); err != nil || done.Credited != 1 {
			t.Fatalf("the follower's pass: %+v, %v", done, err)
		}
		wantPayer(t, id, hash)
	})
}
