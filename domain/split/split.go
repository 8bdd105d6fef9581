// Package split is the merchant's payment split: who receives what share of each payment.
//
// Rules:
//   - A split is configured once per merchant; a later configure request changes nothing and
//     answers the existing configuration (idempotent).
//   - Recipients have valid 0x addresses other than the zero address (its funds would burn, and
//     the split contract refuses it), no repeats, positive integer shares in basis points that
//     add up to exactly 10,000.
//   - Without recipients the default is the merchant at 9,950 and the platform recipient at 50;
//     that needs a platform recipient.
//   - A split contract address is required until contracts can be deployed from here; it is
//     never the zero address (the processor and the deposits would send payments there: burnt).
package split

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/payledger/payledger/domain/address"
)

// StreamPrefix starts the event-stream id of every merchant's split: "split-<wallet>".
const StreamPrefix = "split-"

// Stream is the event stream of the split of merchant wallet.
func Stream(wallet string) string { return StreamPrefix + wallet }

// TotalBps is 100% in basis points.
const TotalBps = 10_000

// Default shares when the merchant names no recipients.
const (
	DefaultMerchantBps = 9_950
	DefaultPlatformBps = 50
	MaxRecipients      = 50
)

// EventConfigured is the type name of Configured.
const EventConfigured = "SplitConfigured"

// Errors of Decide.
var (
	ErrInvalid               = errors.New("invalid split")
	ErrAddressRequired       = errors.New("a split contract address is required: no chain is configured to deploy one")
	ErrPlatformNotConfigured = errors.New("platform recipient address not set up")
)

// Recipient receives SharesBps of each payment.
type Recipient struct {
	Address   string `json:"address"`
	SharesBps int    `json:"sharesBps"`
}

// Configured records a merchant's split (version 1 of the event).
type Configured struct {
	Merchant     string      `json:"merchant"`
	Address      string      `json:"address"`
	Recipients   []Recipient `json:"recipients"`
	ConfiguredAt int64       `json:"configuredAt"` // Unix ms
	// CodeSeenAt is the time (Unix s, the chain's clock) of a block in which the contract's code
	// was read when it was configured; 0: none was read (events before stop 68, no chain).
	CodeSeenAt int64 `json:"codeSeenAt,omitempty"`
}

// State is a merchant's split as its events say.
type State struct {
	Configured bool
	Address    string
	Recipients []Recipient
	Moved      []string // the split's earlier addresses, oldest first (Redeployed)
	// CodeSince (Unix s): on the chain the split's current address was recorded on, a block
	// stamped later holds its code. The time of the block its code was read in at the
	// recording (CodeSeenAt), else (or when that block is stamped after the recording) the
	// recording's second on the service's clock (the contract held code then). A split is
	// deployed again only on a block stamped later (splitGone).
	CodeSince int64
}

// Evolve applies one event.
func Evolve(s State, e Configured) State {
	if s.Configured { // the first configuration stands
		return s
	}
	return State{Configured: true, Address: e.Address, Recipients: e.Recipients, CodeSince: codeSince(e.CodeSeenAt, e.ConfiguredAt)}
}

// codeSince is a recording's CodeSince: the block time its code was read in (seenAt, Unix s),
// else the second of the recording (recordedMs, Unix ms); the recording's second too when the
// block is stamped after it. A real chain stamps its blocks with the time (the block was read
// before the recording); a development chain that seals faster than a block a second runs
// ahead, and taking its stamp would keep a new development chain (issue 40), stamped now, from
// ever showing a block past it.
func codeSince(seenAt, recordedMs int64) int64 {
	if seenAt > 0 && seenAt <= recordedMs/1000 {
		return seenAt
	}
	return recordedMs / 1000
}

// Configure asks for a split.
type Configure struct {
	Merchant   string
	Address    string      // split contract address; empty when none was given
	Recipients []Recipient // nil: the default
	Platform   string      // PLATFORM_RECIPIENT, may be empty
	CodeSeenAt int64       // Configured.CodeSeenAt
}

// Decide returns the event that configures the split, or none when it is already configured
// (idempotent). Errors: ErrInvalid (wrapped with the reason), ErrAddressRequired,
// ErrPlatformNotConfigured.
func Decide(s State, c Configure, now time.Time) ([]Configured, error) {
	if s.Configured {
		return nil, nil
	}
	if c.Address == "" {
		return nil, ErrAddressRequired
	}
	if !address.Valid(c.Address) {
		return nil, fmt.Errorf("%w: splitAddress must be a 0x-prefixed 40-hex-character address", ErrInvalid)
	}
	if c.Address[2:] == zeroHex {
		return nil, fmt.Errorf("%w: splitAddress is the zero address, where payments would burn", ErrInvalid)
	}
	recipients := c.Recipients
	if recipients == nil {
		if c.Platform == "" {
			return nil, ErrPlatformNotConfigured
		}
		recipients = []Recipient{{c.Merchant, DefaultMerchantBps}, {c.Platform, DefaultPlatformBps}}
	}
	if err := validate(recipients); err != nil {
		return nil, err
	}
	out := make([]Recipient, len(recipients))
	for i, r := range recipients {
		out[i] = Recipient{Address: strings.ToLower(r.Address), SharesBps: r.SharesBps}
	}
	return []Configured{{Merchant: c.Merchant, Address: strings.ToLower(c.Address), Recipients: out, ConfiguredAt: now.UnixMilli(), CodeSeenAt: c.CodeSeenAt}}, nil
}

// zeroHex is the zero address's 40 hex digits.
const zeroHex = "0000000000000000000000000000000000000000"

func validate(rs []Recipient) error {
	if len(rs) == 0 || len(rs) > MaxRecipients {
		return fmt.Errorf("%w: between 1 and %d recipients are required", ErrInvalid, MaxRecipients)
	}
	seen := map[string]bool{}
	total := 0
	for i, r := range rs {
		if !address.Valid(r.Address) {
			return fmt.Errorf("%w: recipients[%d].address must be a 0x-prefixed 40-hex-character address", ErrInvalid, i)
		}
		if r.Address[2:] == zeroHex {
			return fmt.Errorf("%w: recipients[%d].address is the zero address, which cannot receive a share", ErrInvalid, i)
		}
		if r.SharesBps <= 0 || r.SharesBps > TotalBps {
			return fmt.Errorf("%w: recipients[%d].sharesBps must be a positive integer up to %d", ErrInvalid, i, TotalBps)
		}
		a := strings.ToLower(r.Address)
		if seen[a] {
			return fmt.Errorf("%w: recipients[%d].address appears twice", ErrInvalid, i)
		}
		seen[a] = true
		total += r.SharesBps
	}
	if total != TotalBps {
		return fmt.Errorf("%w: sharesBps add up to %d, they must add up to exactly %d", ErrInvalid, total, TotalBps)
	}
	return nil
}
