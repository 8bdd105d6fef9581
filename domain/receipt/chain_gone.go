package receipt

// A receipt's deposit address is an address on one chain. When the service follows a new
// development chain (issue 40: each `make run` starts one afresh in memory), the old chain is
// gone with whatever was sent to the address there:
//   - DepositChainGone records it in the receipt's history, once, for a receipt with a deposit
//     address that is not reconciled or refunded (those are done);
//   - its status does not change (the payment window still decides an unpaid one); its deposit
//     is no longer watched or swept, and its page says so (State.DepositChainGone).

// EventDepositChainGone is the type name of DepositChainGone.
const EventDepositChainGone = "DepositChainGone"

// DepositChainGone records that the chain of the receipt's deposit address is gone: the service
// follows another chain (genesis Genesis) than the one it was issued on (PreviousGenesis).
type DepositChainGone struct {
	DepositAddress  string `json:"depositAddress"`
	PreviousGenesis string `json:"previousGenesis"`
	Genesis         string `json:"genesis"`
	At              int64  `json:"at"`
}

func (DepositChainGone) eventType() string { return EventDepositChainGone }

// ChainGone decides DepositChainGone for a receipt issued on the chain previous, now that the
// service follows genesis; none for a receipt without a deposit address, already marked, or
// reconciled or refunded. Errors: ErrNotFound.
func ChainGone(s State, previous, genesis string, at int64) ([]Event, error) {
	if !s.Exists {
		return nil, ErrNotFound
	}
	if s.DepositAddress() == "" || s.DepositChainGone != nil || s.Status == StatusReconciled || s.Status == StatusRefunded {
		return nil, nil
	}
	return []Event{DepositChainGone{DepositAddress: s.DepositAddress(), PreviousGenesis: previous, Genesis: genesis, At: at}}, nil
}
