package split

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/payledger/payledger/domain/address"
)

// A split contract lives on one chain. When the service follows a new development chain (issue
// 40: each `make run` starts one afresh), the merchant's configured split has no code there: the
// service deploys the same split again (same recipients and shares) and records the new address.
//   - Only a configured split is redeployed, to a valid address other than its own.
//   - The recipients and shares never change by a redeployment; the first configuration's stand.

// EventRedeployed is the type name of Redeployed.
const EventRedeployed = "SplitRedeployed"

// Redeployed records that the merchant's split contract was deployed again at Address, because
// the one at Previous holds no code on the chain the service follows (version 1 of the event).
type Redeployed struct {
	Merchant     string `json:"merchant"`
	Address      string `json:"address"`
	Previous     string `json:"previous"`
	Reason       string `json:"reason"`
	RedeployedAt int64  `json:"redeployedAt"`         // Unix ms
	CodeSeenAt   int64  `json:"codeSeenAt,omitempty"` // as Configured.CodeSeenAt, for Address
}

// DecideRedeploy returns the event that moves a configured split to address, deployed again for
// reason. Errors: ErrInvalid (not configured yet, a malformed or zero address, the same address).
func DecideRedeploy(s State, merchant, addr, reason string, now time.Time) ([]Redeployed, error) {
	if !s.Configured {
		return nil, fmt.Errorf("%w: no split is configured to deploy again", ErrInvalid)
	}
	if !address.Valid(addr) {
		return nil, fmt.Errorf("%w: splitAddress must be a 0x-prefixed 40-hex-character address", ErrInvalid)
	}
	if addr[2:] == zeroHex {
		return nil, fmt.Errorf("%w: splitAddress is the zero address, where payments would burn", ErrInvalid)
	}
	addr = strings.ToLower(addr)
	if addr == s.Address {
		return nil, fmt.Errorf("%w: the split is already at %s", ErrInvalid, addr)
	}
	return []Redeployed{{Merchant: merchant, Address: addr, Previous: s.Address, Reason: reason, RedeployedAt: now.UnixMilli()}}, nil
}

// EvolveRedeployed applies a redeployment: the split's address changes, the one it leaves is
// remembered (deposits of receipts created before stay bound to it), nothing else.
func EvolveRedeployed(s State, e Redeployed) State {
	if !s.Configured {
		return s
	}
	s.Moved = append(slices.Clip(s.Moved), s.Address)
	s.Address = e.Address
	s.CodeSince = codeSince(e.CodeSeenAt, e.RedeployedAt)
	return s
}
