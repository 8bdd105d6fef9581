package settlement_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/settlement/pgstore"
)

// TestPaymentWindowIsJudgedByTheDatabasesClock: every instance runs the window's passes, and each
// judged the end by its own clock, so an instance whose clock ran 2 s fast expired a receipt 2 s
// before its expiresAt. Judged by the database's clock (JudgedBy), that instance expires nothing
// until the database's clock says the window has ended: a transfer mined then, in the skew, pays
// the receipt in time. And one mined before the end but seen only after the expiry (the chain's
// clock is not the database's either) is still credited by the late-payment watch: paid late.
func TestPaymentWindowIsJudgedByTheDatabasesClock(t *testing.T) {
	t.Parallel()
	e := newWindowEnv(t)
	fast := func() time.Time { return time.Now().Add(2 * time.Second) } // this instance's clock, 2 s ahead of the database's
	h := e.handler().JudgedBy(pgstore.NewReceipts(e.pool), fast)
	inSkew, afterExpiry := e.receipt(), e.receipt()
	end := e.state(inSkew).Receipt.ExpiresAt
	e.advance(e.cfg.Window + time.Second) // the instance's clock reads the end + 1 s; the database's, the end - 1 s
	if got, err := h.Handle(e.ctx); err != nil || len(got) != 0 {
		t.Fatalf("a pass 1 s before the end by the database's clock expired %v (%v)", got, err)
	}
	e.minedAt(inSkew, 1, end-500) // mined 0.5 s before the end, confirmed
	if st := e.state(inSkew); st.Status != receipt.StatusPaid || st.PaidLate() {
		t.Fatalf("a payment mined in the skew: status %s, paid late %v", st.Status, st.PaidLate())
	}
	e.advance(2 * time.Second) // the database's clock: the end + 1 s
	got, err := h.Handle(e.ctx)
	if err != nil || len(got) != 1 || got[0].ReceiptID != afterExpiry {
		t.Fatalf("the pass after the end expired %v (%v), want %s", got, err, afterExpiry)
	}
	e.wantExpired(afterExpiry, "")
	e.minedAt(afterExpiry, 2, end-500) // mined before the end, seen after the expiry
	if st := e.state(afterExpiry); st.Status != receipt.StatusPaid || !st.PaidLate() {
		t.Fatalf("a payment mined before the end and seen after the expiry: status %s, paid late %v", st.Status, st.PaidLate())
	}
}

// minedAt reports a confirmed 10.00 USDC transfer to id's deposit address mined at blockTime
// (Unix ms), seen now.
func (e *windowEnv) minedAt(id string, n int, blockTime int64) {
	e.t.Helper()
	at := e.now().UnixMilli()
	e.change(id, func(st receipt.State) ([]receipt.Event, error) {
		return receipt.ObserveDeposit(st, receipt.DepositObservation{Confirmed: true, At: at, Transfer: receipt.DepositTransferSeen{
			TransactionHash: fmt.Sprintf("0x%064x", 500+n), LogIndex: 0, BlockNumber: uint64(500 + n), BlockHash: fmt.Sprintf("0x%064x", 1500+n),
			Sender: payMerchant, Token: "USDC", AmountUnits: "10000000", Decimals: 6, BlockTime: blockTime}})
	})
}
