package receipt

import (
	"strings"

	"github.com/payledger/payledger/domain/failure"
)

// ProcessorUpdate is a status report from the onramp processor, by signed event or its API.
type ProcessorUpdate struct {
	SessionID, AttemptID, Status, ErrorCode, RequestID, TransactionHash, Wallet string
	SourceAmountCents                                                           *int64
	SessionUnique                                                               bool
	At                                                                          int64 // Unix ms
}

// ProcessorStatuses are the session statuses of the onramp processor (DESIGN.md section 6).
var ProcessorStatuses = []string{"fulfillment_processing", "ach_pending", "fulfillment_complete", "rejected", "expired", "cancelled"}

// IsFailure reports a terminal failure status of the processor.
func (u ProcessorUpdate) IsFailure() bool {
	return u.Status == "rejected" || u.Status == "expired" || u.Status == "cancelled"
}

// DecideProcessorUpdate turns a processor report into receipt events through the guards. A
// report for a session the service did not start opens an attempt for it, unless it is a
// failure: a failure of an attempt the receipt does not know is ignored (and recorded). Errors:
// those of Submit, AcceptACH, Confirm and Fail (ErrNotFound, ErrState, ErrWithdrawn).
func DecideProcessorUpdate(s State, u ProcessorUpdate) ([]Event, error) {
	attempt := u.AttemptID
	if attempt == "" {
		for id, a := range s.Attempts {
			if a.SessionID != "" && a.SessionID == u.SessionID {
				attempt = id
			}
		}
	}
	var opened []Event
	if _, known := s.Attempts[attempt]; !known && !u.IsFailure() {
		if attempt == "" {
			attempt = "att_" + u.SessionID
		}
		evs, err := StartAttempt(s, AttemptStarted{AttemptID: attempt, Kind: "onramp", SessionID: u.SessionID,
			SessionUnique: u.SessionUnique, OpenedBy: "processor", At: u.At})
		if err == nil {
			opened = evs
		}
	}
	if attempt == "" {
		attempt = "session:" + u.SessionID
	}
	return Then(s, opened, nil, func(s State) ([]Event, error) { return decideProcessorStatus(s, u, attempt) })
}

// decideProcessorStatus is the processor's status of attempt as receipt events.
func decideProcessorStatus(s State, u ProcessorUpdate, attempt string) ([]Event, error) {
	switch u.Status {
	case "fulfillment_processing":
		return Submit(s, PaymentSubmitted{AttemptID: attempt, Source: "processor", At: u.At})
	case "ach_pending":
		return AcceptACH(s, ACHAccepted{AttemptID: attempt, At: u.At})
	case "fulfillment_complete":
		return Confirm(s, PaymentConfirmed{AttemptID: attempt, TransactionHash: strings.ToLower(u.TransactionHash),
			BuyerWallet: strings.ToLower(u.Wallet), Token: "USDC", SourceAmountCents: u.SourceAmountCents, VerifiedBy: "processor", At: u.At})
	case "rejected", "expired", "cancelled":
		c := failure.FromProcessor(u.Status, u.ErrorCode)
		return Fail(s, PaymentFailed{AttemptID: attempt, Code: c.Code, Category: c.Category, Reason: c.Description,
			Action: c.Action, ProviderErrorCode: u.ErrorCode, ProviderRequestID: u.RequestID, At: u.At})
	}
	return nil, nil
}

// Then chains two decisions: the second sees the state after the first's events. Errors: err
// when not nil, else next's.
func Then(s State, first []Event, err error, next func(State) ([]Event, error)) ([]Event, error) {
	if err != nil {
		return nil, err
	}
	for _, e := range first {
		s = Evolve(s, e)
	}
	more, err := next(s)
	if err != nil {
		return nil, err
	}
	return append(first, more...), nil
}
