package settlement_test

import (
	"math/big"
	"strings"
	"testing"

	"github.com/payledger/payledger/domain/receipt"
)

// Issue 26: a phone wallet pays by a plain ERC-20 transfer to the deposit address, no hash
// submitted: seen -> pending, CHAIN_CONFIRMATIONS deep -> paid by the chain.
func TestDepositPlainTransferPendingThenPaid(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	r := e.receipt(1231)
	d := e.detector()
	e.step(d)
	tx := e.payToken(e.usdc, r.DepositAddress(), 12_310_000)
	e.mined(tx)
	e.step(d)
	st := e.want(r.Receipt.ReceiptID, receipt.StatusPending, "0.00")
	if st.TransactionHash() == "" || len(st.Credits) != 1 {
		t.Fatalf("pending without the transfer: %+v", st.Credits)
	}
	// The merchant's event log has the detection, for the webhook endpoints.
	var detected, deposit, hash string
	e.ok(e.pool.QueryRow(e.ctx, `SELECT type, data->>'depositAddress', data->>'transactionHash' FROM webhook_events
		WHERE type = 'receipt.payment_detected'`).Scan(&detected, &deposit, &hash))
	if deposit != r.DepositAddress() || !strings.EqualFold(hash, tx.Hash().Hex()) {
		t.Fatalf("payment_detected for %s %s", deposit, hash)
	}
	e.commit()
	e.step(d)
	st = e.want(r.Receipt.ReceiptID, receipt.StatusPaid, "12.31")
	if st.Payment.VerifiedBy != receipt.VerifiedByChain || st.AmountRequired() != "12.31" || st.PaidLate() {
		t.Fatalf("payment %+v required %q", st.Payment, st.AmountRequired())
	}
}

// Underpaid stays pending; a second transfer completes it. Overpaid is paid, with the excess.
func TestDepositUnderpaidThenCompletedAndOverpaid(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	under, over := e.receipt(1000), e.receipt(500)
	d := e.detector()
	e.step(d)
	e.mined(e.payToken(e.usdc, under.DepositAddress(), 4_000_000), e.payToken(e.usdc, over.DepositAddress(), 7_250_000))
	e.commit()
	e.step(d)
	e.want(under.Receipt.ReceiptID, receipt.StatusPending, "4.00")
	if st := e.want(over.Receipt.ReceiptID, receipt.StatusPaid, "7.25"); st.AmountRequired() != "5.00" {
		t.Fatalf("overpaid: required %q", st.AmountRequired())
	}
	e.mined(e.payToken(e.usdc, under.DepositAddress(), 6_000_000))
	e.step(d)
	e.want(under.Receipt.ReceiptID, receipt.StatusPending, "4.00")
	e.commit()
	e.step(d)
	e.want(under.Receipt.ReceiptID, receipt.StatusPaid, "10.00")
}

// A USDC request paid in USDT counts one to one.
func TestDepositUSDTPaysAUSDCRequest(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	r := e.receipt(250)
	d := e.detector()
	e.step(d)
	e.mined(e.payToken(e.usdt, r.DepositAddress(), 2_500_000))
	e.commit()
	e.step(d)
	if st := e.want(r.Receipt.ReceiptID, receipt.StatusPaid, "2.50"); st.Payment.Token != "USDT" {
		t.Fatalf("paid in %q", st.Payment.Token)
	}
}

// ETH by the receipt's quote: part by a plain transaction, the rest from a contract (a deposit
// swept to this deposit address: an internal transfer no transaction shows), found by balance.
func TestDepositETHByQuoteWithAContractTransfer(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	r := e.receipt(1000)
	e.quote(r.Receipt.ReceiptID, "0.01000000")
	d := e.detector()
	e.step(d)
	e.mined(e.payETH(r.DepositAddress(), big.NewInt(6e15)))
	e.fromContract(r.DepositAddress(), big.NewInt(4e15))
	for range 3 {
		e.commit()
		e.step(d)
	}
	st := e.want(r.Receipt.ReceiptID, receipt.StatusPaid, "0.01")
	if len(st.Credits) != 2 || st.Credits[1].LogIndex != -2 || st.Credits[1].AmountUnits != "4000000000000000" {
		t.Fatalf("credits %+v", st.Credits)
	}
}
