package settlement_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/internal/syncbuf"
	"github.com/payledger/payledger/projections"
)

// newerBuildStore is the ledger as a build that cannot read one receipt's stream sees it while
// hidden is on: that stream ends with an event of a newer build (during a rollback or a rolling
// upgrade); off, the stream is as stored (the newer build is back, or the event is understood).
type newerBuildStore struct {
	*projections.ReceiptsAtAppend
	stream string
	hidden atomic.Bool
}

func (s *newerBuildStore) newer(stream string, evs []eventstore.RecordedEvent) []eventstore.RecordedEvent {
	if stream != s.stream || !s.hidden.Load() || len(evs) == 0 {
		return evs
	}
	last := evs[len(evs)-1]
	return append(slices.Clone(evs), eventstore.RecordedEvent{ID: uuid.New(), StreamID: stream, Version: last.Version + 1,
		Type: "ReceiptAnnotatedInTheFuture", Data: json.RawMessage(`{"at":2000}`)})
}

func (s *newerBuildStore) ReadStream(ctx context.Context, stream string, from uint64, limit int) ([]eventstore.RecordedEvent, error) {
	evs, err := s.ReceiptsAtAppend.ReadStream(ctx, stream, from, limit)
	if err != nil || len(evs) >= limit {
		return evs, err
	}
	return s.newer(stream, evs), nil
}

func (s *newerBuildStore) ReadStreams(ctx context.Context, streams []string) (map[string][]eventstore.RecordedEvent, error) {
	read, err := s.ReceiptsAtAppend.ReadStreams(ctx, streams)
	if err != nil {
		return read, err
	}
	for k, evs := range read {
		read[k] = s.newer(k, evs)
	}
	return read, nil
}

// Append and AppendStreams refuse the hidden stream's appends as the store does once the newer
// build's event is there: the expected version is behind.
func (s *newerBuildStore) Append(ctx context.Context, stream string, expected eventstore.ExpectedVersion, events ...eventstore.EventData) (eventstore.AppendResult, error) {
	if stream == s.stream && s.hidden.Load() {
		return eventstore.AppendResult{}, fmt.Errorf("%s: %w", stream, eventstore.ErrWrongExpectedVersion)
	}
	return s.ReceiptsAtAppend.Append(ctx, stream, expected, events...)
}

func (s *newerBuildStore) AppendStreams(ctx context.Context, appends []eventstore.StreamAppend) ([]eventstore.AppendResult, []error) {
	i := slices.IndexFunc(appends, func(a eventstore.StreamAppend) bool { return a.Stream == s.stream })
	if i < 0 || !s.hidden.Load() {
		return s.ReceiptsAtAppend.AppendStreams(ctx, appends)
	}
	rest := slices.Delete(slices.Clone(appends), i, i+1)
	res, errs := s.ReceiptsAtAppend.AppendStreams(ctx, rest)
	res = slices.Insert(res, i, eventstore.AppendResult{})
	errs = slices.Insert(errs, i, error(fmt.Errorf("%s: %w", s.stream, eventstore.ErrWrongExpectedVersion)))
	return res, errs
}

// TestDetectionGoesOnPastAReceiptThatCannotBeRead (stop 67): a receipt whose stream holds an
// event this build cannot read, with a transfer to record, failed every step of the deposit
// detector: the cursor stayed, and no transfer of any merchant past the detector's range was
// credited again (the stop 65 residual). Now the other receipts are credited and the cursor moves;
// the receipt's transfer is kept (its first block saved, so a restarted detector reads it again),
// the step says so (StepResult.Unreadable), logged once; once the stream can be read, the
// transfer is recorded and pays the receipt, by this detector and by a restarted one.
func TestDetectionGoesOnPastAReceiptThatCannotBeRead(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	bad, good, later := e.receipt(1000), e.receipt(1000), e.receipt(500)
	badID := bad.Receipt.ReceiptID
	store := &newerBuildStore{ReceiptsAtAppend: e.store, stream: receipt.Stream(badID)}
	var logs syncbuf.Buffer
	d := e.detector()
	d.Events, d.Log = store, zerolog.New(&logs)
	e.step(d)

	store.hidden.Store(true)
	e.mined(e.payToken(e.usdc, bad.DepositAddress(), 10_000_000), e.payToken(e.usdc, good.DepositAddress(), 10_000_000))
	e.commit()
	res, err := d.Step(e.ctx)
	if err != nil {
		t.Fatalf("a step failed on the receipt that cannot be read: %v (detection stopped for every merchant)", err)
	}
	if !errors.Is(res.Unreadable, receipt.ErrUnknownEvent) || !strings.Contains(res.Unreadable.Error(), badID) {
		t.Fatalf("the step's Unreadable is %v, want receipt %s's", res.Unreadable, badID)
	}
	e.synced()
	e.want(good.Receipt.ReceiptID, receipt.StatusPaid, "10.00")
	e.want(badID, receipt.StatusGenerated, "")

	// Later blocks are read and credited while the receipt still cannot be read.
	e.mined(e.payToken(e.usdc, later.DepositAddress(), 5_000_000))
	e.commit()
	if res, err = d.Step(e.ctx); err != nil || res.Unreadable == nil {
		t.Fatalf("the next step: %+v %v, want the receipt still unreadable", res, err)
	}
	e.synced()
	e.want(later.Receipt.ReceiptID, receipt.StatusPaid, "5.00")
	if n := strings.Count(logs.String(), `"stream":"`+receipt.Stream(badID)+`"`); n != 1 {
		t.Errorf("%d log lines naming the stream, want 1:\n%s", n, logs.String())
	}

	// A restarted detector (the cursor past the transfer) reads it again from its block. (Its
	// row written an hour ago: not one a first step looks back for as listed after the cursor.)
	_, err = e.pool.Exec(e.ctx, `UPDATE receipts SET listed_at = now() - interval '1 hour' WHERE receipt_id = $1`, badID)
	e.ok(err)
	restarted := e.detector()
	restarted.Events = store
	e.commit()
	if res, err = restarted.Step(e.ctx); err != nil || res.Unreadable == nil {
		t.Fatalf("the restarted detector's step: %+v %v, want the kept transfer found again and the receipt still unreadable", res, err)
	}

	// Readable again: the kept transfer is recorded and, deep enough, pays the receipt.
	store.hidden.Store(false)
	for range 2 {
		e.commit()
		if res, err = d.Step(e.ctx); err != nil || res.Unreadable != nil {
			t.Fatalf("a step once the receipt can be read: %+v %v", res, err)
		}
		e.synced()
	}
	if st := e.want(badID, receipt.StatusPaid, "10.00"); len(st.Credits) != 1 {
		t.Fatalf("credits %+v, want the one transfer once", st.Credits)
	}
	// The restarted detector kept it too: recording it again changes nothing.
	e.commit()
	if res, err = restarted.Step(e.ctx); err != nil || res.Unreadable != nil {
		t.Fatalf("the restarted detector's step: %+v %v", res, err)
	}
	e.synced()
	if st := e.want(badID, receipt.StatusPaid, "10.00"); len(st.Credits) != 1 || st.Payment == nil {
		t.Fatalf("credits %+v after the restarted detector's step, want one", st.Credits)
	}
}

// TestDetectionGoesOnPastAKnownReceiptThatCannotBeRead: the same for a receipt the detector
// appended to before (held in its memory at the version it left): its next transfer is kept, not
// a failed step, and recorded once the stream can be read.
func TestDetectionGoesOnPastAKnownReceiptThatCannotBeRead(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	bad, good := e.receipt(1000), e.receipt(1000)
	badID := bad.Receipt.ReceiptID
	store := &newerBuildStore{ReceiptsAtAppend: e.store, stream: receipt.Stream(badID)}
	d := e.detector()
	d.Events = store
	e.step(d)
	e.mined(e.payToken(e.usdc, bad.DepositAddress(), 4_000_000))
	e.commit()
	e.step(d)
	e.want(badID, receipt.StatusPending, "4.00")

	store.hidden.Store(true)
	e.mined(e.payToken(e.usdc, bad.DepositAddress(), 6_000_000), e.payToken(e.usdc, good.DepositAddress(), 10_000_000))
	e.commit()
	res, err := d.Step(e.ctx)
	if err != nil || !errors.Is(res.Unreadable, receipt.ErrUnknownEvent) {
		t.Fatalf("a step past the known receipt that cannot be read: %+v %v", res, err)
	}
	e.synced()
	e.want(good.Receipt.ReceiptID, receipt.StatusPaid, "10.00")

	store.hidden.Store(false)
	for range 2 {
		e.commit()
		if res, err = d.Step(e.ctx); err != nil || res.Unreadable != nil {
			t.Fatalf("a step once the receipt can be read: %+v %v", res, err)
		}
		e.synced()
	}
	if st := e.want(badID, receipt.StatusPaid, "10.00"); len(st.Credits) != 2 {
		t.Fatalf("credits %+v, want the two transfers once each", st.Credits)
	}
}
