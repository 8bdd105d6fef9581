package split

import (
	"errors"
	"strings"
	"time"
)

// Ownership of a split contract (DESIGN 9): a split contract belongs to one merchant. The first
// merchant whose configuration names an address claims it (AddressClaimed, in the address's own
// stream); another merchant naming it is refused with ErrClaimed. Claiming again as its owner
// changes nothing.

// AddressStreamPrefix starts the event-stream id of a split contract address's owner.
const AddressStreamPrefix = "splitaddr-"

// AddressStream is the stream of the owner of the split contract at address.
func AddressStream(address string) string { return AddressStreamPrefix + strings.ToLower(address) }

// EventAddressClaimed is the type name of AddressClaimed.
const EventAddressClaimed = "SplitAddressClaimed"

// ErrClaimed: the split contract is another merchant's.
var ErrClaimed = errors.New("this split contract is configured by another merchant")

// AddressClaimed records that merchant owns the split contract at address (version 1).
type AddressClaimed struct {
	Address   string `json:"address"`
	Merchant  string `json:"merchant"`
	ClaimedAt int64  `json:"claimedAt"` // Unix ms
}

// Owner is the merchant owning a split contract address ("" none).
type Owner struct{ Merchant string }

// EvolveOwner applies one claim: the first stands.
func EvolveOwner(o Owner, e AddressClaimed) Owner {
	if o.Merchant != "" {
		return o
	}
	return Owner{Merchant: strings.ToLower(e.Merchant)}
}

// DecideClaim returns the claim of address by merchant, none when merchant owns it already.
// Errors: ErrClaimed when another merchant does.
func DecideClaim(o Owner, merchant, address string, now time.Time) ([]AddressClaimed, error) {
	switch {
	case o.Merchant == strings.ToLower(merchant):
		return nil, nil
	case o.Merchant != "":
		return nil, ErrClaimed
	}
	return []AddressClaimed{{Address: strings.ToLower(address), Merchant: strings.ToLower(merchant), ClaimedAt: now.UnixMilli()}}, nil
}
