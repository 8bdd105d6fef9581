package commands_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
)

func TestRefund(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t)
	h := commands.NewRefundHandler(e.store, &heldHashes{}, e.now)
	id := e.receipt(payMerchant, "USD", 10000)
	hash := func(d string) string { return "0x" + strings.Repeat(d, 64) }

	if _, err := h.Handle(e.ctx, commands.Refund{ReceiptID: id, Reason: "customer", By: payMerchant}); !errors.Is(err, receipt.ErrState) {
		t.Fatalf("refund of an unpaid receipt: %v", err)
	}
	e.paid(id)
	for _, c := range []struct {
		name    string
		cmd     commands.Refund
		message string
	}{
		{"no receipt", commands.Refund{Reason: "x"}, "receiptId and a reason"},
		{"no reason", commands.Refund{ReceiptID: id, Reason: "  "}, "receiptId and a reason"},
		{"long reason", commands.Refund{ReceiptID: id, Reason: strings.Repeat("r", 501)}, "receiptId and a reason"},
		{"bad hash", commands.Refund{ReceiptID: id, Reason: "x", TransactionHash: "0x1"}, "transactionHash must be 0x followed by 64 hex characters"},
		{"negative amount", commands.Refund{ReceiptID: id, Reason: "x", AmountUSD: "-5"}, "amountUsd must be a positive amount"},
		{"zero amount", commands.Refund{ReceiptID: id, Reason: "x", AmountUSD: "0"}, "amountUsd must be a positive amount"},
		{"three decimals", commands.Refund{ReceiptID: id, Reason: "x", AmountUSD: "1.005"}, "amountUsd must be a positive amount"},
		{"unknown transfer without a hash", commands.Refund{ReceiptID: id, Reason: "x", Unknown: &receipt.UnknownTransferRef{TransactionHash: hash("c")}}, "unknownTransfer needs"},
		{"unknown transfer with an amount", commands.Refund{ReceiptID: id, Reason: "x", TransactionHash: hash("d"), AmountUSD: "1",
			Unknown: &receipt.UnknownTransferRef{TransactionHash: hash("c")}}, "unknownTransfer needs"},
		{"unknown transfer badly named", commands.Refund{ReceiptID: id, Reason: "x", TransactionHash: hash("d"),
			Unknown: &receipt.UnknownTransferRef{TransactionHash: "0x1", LogIndex: -1}}, "unknownTransfer needs"},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.cmd.By = payMerchant
			_, err := h.Handle(e.ctx, c.cmd)
			wantRefusal(t, err, "invalid_input", c.message)
		})
	}
	// Another merchant's receipt is not there for them; a platform admin may refund it.
	if _, err := h.Handle(e.ctx, commands.Refund{ReceiptID: id, Reason: "x", By: payOther}); !errors.Is(err, receipt.ErrNotFound) {
		t.Fatalf("another merchant: %v", err)
	}
	if _, err := h.Handle(e.ctx, commands.Refund{ReceiptID: id, Reason: "x", AmountUSD: "100.01", By: payMerchant}); !errors.Is(err, receipt.ErrAmount) {
		t.Fatalf("over-refund: %v", err)
	}
	out, err := h.Handle(e.ctx, commands.Refund{ReceiptID: id, Reason: "damaged", AmountUSD: "30", TransactionHash: hash("A"), By: payMerchant})
	if err != nil || out.State.Status != receipt.StatusPaid || out.State.Unrefunded() != 7000 || out.State.RefundTxHashes[0] != "0x"+strings.Repeat("a", 64) {
		t.Fatalf("partial: %+v %v", out.State, err)
	}
	out, err = h.Handle(e.ctx, commands.Refund{ReceiptID: id, Reason: "rest", By: payMerchant})
	if err != nil || out.State.Status != receipt.StatusRefundRequested || out.State.RequestedCents != 7000 {
		t.Fatalf("request: %+v %v", out.State, err)
	}
	out, err = h.Handle(e.ctx, commands.Refund{ReceiptID: id, Reason: "rest", TransactionHash: hash("b"), By: payPlatform, Admin: true})
	if err != nil || out.State.Status != receipt.StatusRefunded || out.State.RefundedCents != 10000 {
		t.Fatalf("processed by an admin: %+v %v", out.State, err)
	}
	if _, err := h.Handle(e.ctx, commands.Refund{ReceiptID: id, Reason: "again", By: payMerchant}); !errors.Is(err, receipt.ErrState) {
		t.Fatalf("refund of a refunded receipt: %v", err)
	}
}

// heldHashes is commands.RefundClaims in memory (pgstore.RefundClaims is the PostgreSQL one,
// exercised by the settlement refund tests): each hash held by one receipt, counting the
// requests that hold it.
type heldHashes struct {
	mu       sync.Mutex
	by       map[string]string
	holders  map[string]int
	reserves int // calls of Reserve
}

func (h *heldHashes) Reserve(_ context.Context, hash, receiptID string, _ time.Time) (bool, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.reserves++
	if h.by == nil {
		h.by, h.holders = map[string]string{}, map[string]int{}
	}
	holder, ok := h.by[hash]
	if ok && holder != receiptID {
		return false, commands.ErrRefundHashTaken
	}
	h.by[hash] = receiptID
	h.holders[hash]++
	return !ok, nil
}

func (h *heldHashes) Release(_ context.Context, hash, receiptID string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.by[hash] != receiptID {
		return nil
	}
	if h.holders[hash]--; h.holders[hash] <= 0 {
		delete(h.by, hash)
		delete(h.holders, hash)
	}
	return nil
}

// A hash counts for one refund: again on the same receipt or on another, 409 conflict; a refund
// that could not be recorded gives its hash back.
func TestRefundHashCountsOnce(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t)
	held := &heldHashes{}
	h := commands.NewRefundHandler(e.store, held, e.now)
	a, b := e.receipt(payMerchant, "USD", 1000), e.receipt(payMerchant, "USD", 1000)
	e.paid(a)
	e.paid(b)
	hash := "0x" + strings.Repeat("c", 64)
	if _, err := h.Handle(e.ctx, commands.Refund{ReceiptID: a, Reason: "x", AmountUSD: "20", TransactionHash: hash, By: payMerchant}); !errors.Is(err, receipt.ErrAmount) {
		t.Fatalf("over-refund: %v", err)
	}
	if len(held.by) != 0 {
		t.Fatalf("a refused refund kept its hash: %v", held.by)
	}
	if _, err := h.Handle(e.ctx, commands.Refund{ReceiptID: a, Reason: "x", AmountUSD: "2", TransactionHash: hash, By: payMerchant}); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{a, b} {
		_, err := h.Handle(e.ctx, commands.Refund{ReceiptID: id, Reason: "x", AmountUSD: "1", TransactionHash: "0x" + strings.ToUpper(hash[2:]), By: payMerchant})
		if !errors.Is(err, commands.ErrRefundHashTaken) {
			t.Fatalf("hash reused on %s: %v", id, err)
		}
	}
	// On the merchant's word (a processor payment) the hash is held for its merchant (stop 64).
	if held.by[hash+"/"+payMerchant] != a {
		t.Fatalf("held %v", held.by)
	}
}

// pausedHashes is heldHashes whose first Reserve waits, after reserving, until proceed is closed.
type pausedHashes struct {
	heldHashes
	once              sync.Once
	reserved, proceed chan struct{}
}

func (p *pausedHashes) Reserve(ctx context.Context, hash, receiptID string, at time.Time) (bool, error) {
	fresh, err := p.heldHashes.Reserve(ctx, hash, receiptID, at)
	first := false
	p.once.Do(func() { first = true }) // not the wait itself: Do blocks every other caller until it returns
	if first {
		close(p.reserved)
		<-p.proceed
	}
	return fresh, err
}

// doubleSubmit runs cmd (on receipt a of a payEnv with two paid receipts a and b) twice: the
// first request reserves the hash and waits while the second runs to its end. The second is
// another process's (a handler of its own on the same store and hashes): within a process the
// refunds of a receipt take turns (stop 71), so only two processes interleave so. It returns both
// requests' errors, the hash store, the first handler and b.
func doubleSubmit(t *testing.T, amountUSD, hash string) (first, second error, held *pausedHashes, h *commands.RefundHandler, b string, e *payEnv) {
	t.Helper()
	e = newPayEnv(t)
	held = &pausedHashes{reserved: make(chan struct{}), proceed: make(chan struct{})}
	h = commands.NewRefundHandler(e.store, held, e.now)
	a := e.receipt(payMerchant, "USD", 1000)
	b = e.receipt(payMerchant, "USD", 1000)
	e.paid(a)
	e.paid(b)
	cmd := commands.Refund{ReceiptID: a, Reason: "x", AmountUSD: amountUSD, TransactionHash: hash, By: payMerchant}
	done := make(chan error, 1)
	go func() { _, err := h.Handle(e.ctx, cmd); done <- err }()
	<-held.reserved
	_, second = commands.NewRefundHandler(e.store, held, e.now).Handle(e.ctx, cmd)
	close(held.proceed)
	return <-done, second, held, h, b, e
}

// A double-submitted refund: the request that reserved the hash first is refused (the other
// recorded the refund meanwhile). Its give-back must not free the hash the recorded refund counts:
// the same hash on another receipt is a 409 conflict. (It used to be freed, and one transfer
// counted as the refund of two receipts.)
func TestRefundDoubleSubmitKeepsItsHash(t *testing.T) {
	t.Parallel()
	hash := "0x" + strings.Repeat("c", 64)
	first, second, held, h, b, e := doubleSubmit(t, "10", hash)
	if second != nil || first == nil {
		t.Fatalf("requests: first %v, second %v; want the second recorded and the first refused", first, second)
	}
	if len(held.by) != 1 || held.by[hash+"/"+payMerchant] == "" || held.by[hash+"/"+payMerchant] == b {
		t.Fatalf("after the double submit the hash is held by %v", held.by)
	}
	if _, err := h.Handle(e.ctx, commands.Refund{ReceiptID: b, Reason: "y", AmountUSD: "10", TransactionHash: hash, By: payMerchant}); !errors.Is(err, commands.ErrRefundHashTaken) {
		t.Fatalf("the same hash on another receipt: %v, want a conflict", err)
	}
}

// A double-submitted refund that both requests fail to record (too large): each gives its hold
// back, and the hash is free for another receipt at once. (The request that found the hash
// already reserved used to keep its hold, and the hash stayed taken until the verifier's grace.)
func TestRefundDoubleSubmitRefusedFreesItsHash(t *testing.T) {
	t.Parallel()
	hash := "0x" + strings.Repeat("d", 64)
	first, second, held, h, b, e := doubleSubmit(t, "20", hash)
	if !errors.Is(first, receipt.ErrAmount) || !errors.Is(second, receipt.ErrAmount) {
		t.Fatalf("requests: first %v, second %v; want both too large", first, second)
	}
	if len(held.by) != 0 {
		t.Fatalf("refused requests kept the hash: %v", held.by)
	}
	if _, err := h.Handle(e.ctx, commands.Refund{ReceiptID: b, Reason: "y", AmountUSD: "10", TransactionHash: hash, By: payMerchant}); err != nil {
		t.Fatalf("the hash on another receipt after both were refused: %v", err)
	}
}

// Another merchant's refund of a receipt is not found before its hash is looked at: it neither
// learns that the hash is counted (a 409 would say so) nor holds it (stop 60: the hash was
// reserved before the receipt's owner was checked, and a hold on a counted hash was never given
// back).
func TestRefundOfAnotherMerchantsReceiptTouchesNoHash(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t)
	held := &heldHashes{}
	h := commands.NewRefundHandler(e.store, held, e.now)
	a := e.receipt(payMerchant, "USD", 1000)
	e.paid(a)
	counted, fresh := "0x"+strings.Repeat("e", 64), "0x"+strings.Repeat("f", 64)
	if _, err := h.Handle(e.ctx, commands.Refund{ReceiptID: a, Reason: "x", AmountUSD: "2", TransactionHash: counted, By: payMerchant}); err != nil {
		t.Fatal(err)
	}
	holders := held.holders[counted+"/"+payMerchant]
	if holders == 0 {
		t.Fatalf("the refund holds nothing: %v", held.by)
	}
	for _, hash := range []string{counted, fresh} {
		_, err := h.Handle(e.ctx, commands.Refund{ReceiptID: a, Reason: "x", AmountUSD: "1", TransactionHash: hash, By: "0x" + strings.Repeat("9", 40)})
		if !errors.Is(err, receipt.ErrNotFound) {
			t.Fatalf("another merchant's refund with %s: %v, want not found", hash, err)
		}
	}
	if held.holders[counted+"/"+payMerchant] != holders || len(held.by) != 1 || held.reserves != 1 {
		t.Fatalf("another merchant's refunds touched the hashes: holders %d -> %d, held %v, %d reserves", holders, held.holders[counted+"/"+payMerchant], held.by, held.reserves)
	}
}

// Stop 64: a refund on the merchant's word holds its hash for its merchant only: another
// merchant's refund on its word with the same hash is taken (a batch transaction, or a hash
// copied from the chain that proves nothing either way), the same merchant's is 409 conflict.
func TestRefundOnTheMerchantsWordHoldsItsHashForItsMerchant(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t)
	held := &heldHashes{}
	h := commands.NewRefundHandler(e.store, held, e.now)
	a, b, c := e.receipt(payMerchant, "USD", 1000), e.receipt(payMerchant, "USD", 1000), e.receipt(payOther, "USD", 1000)
	for _, id := range []string{a, b, c} {
		e.paid(id)
	}
	hash := "0x" + strings.Repeat("7", 64)
	if _, err := h.Handle(e.ctx, commands.Refund{ReceiptID: a, Reason: "x", AmountUSD: "1", TransactionHash: hash, By: payMerchant}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Handle(e.ctx, commands.Refund{ReceiptID: c, Reason: "x", AmountUSD: "1", TransactionHash: hash, By: payOther}); err != nil {
		t.Fatalf("another merchant's refund on its word: %v", err)
	}
	if _, err := h.Handle(e.ctx, commands.Refund{ReceiptID: b, Reason: "x", AmountUSD: "1", TransactionHash: hash, By: payMerchant}); !errors.Is(err, commands.ErrRefundHashTaken) {
		t.Fatalf("the same merchant's other receipt: %v, want a conflict", err)
	}
	if _, ok := held.by[hash]; ok {
		t.Fatalf("a refund on the merchant's word holds the hash itself: %v", held.by)
	}
}
