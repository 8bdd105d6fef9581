package commands

import "fmt"

// Kind is the class of a command's refusal. Transport maps each kind to one HTTP status, in one
// function (transport/errors.go); commands never speak HTTP.
type Kind int

// Refusal kinds.
const (
	KindInvalid     Kind = iota + 1 // the request breaks a rule: 400
	KindNotFound                    // 404
	KindForbidden                   // a business precondition is not met: 403
	KindConflict                    // 409
	KindUnavailable                 // a dependency is not configured or not answering: 503
	KindUpstream                    // a dependency answered with an error: 502
)

// Refusal is a command's refusal that the caller can act on: a stable API code of the spec and a
// message that says what to change. Domain sentinels (receipt.ErrState, split.ErrInvalid, ...)
// are returned as they are and mapped next to refusals.
type Refusal struct {
	Kind    Kind
	Code    string
	Message string
}

func (r *Refusal) Error() string { return fmt.Sprintf("%s: %s", r.Code, r.Message) }

// Is makes two refusals with the same code match, so a sentinel still matches after its message
// was made specific (errors.Is(err, ErrSplitRequired)).
func (r *Refusal) Is(target error) bool {
	t, ok := target.(*Refusal)
	return ok && t.Code == r.Code
}

// Invalid is the refusal of a request that breaks a rule; message says which.
func Invalid(message string) *Refusal {
	return &Refusal{Kind: KindInvalid, Code: "invalid_input", Message: message}
}

// Invalidf is Invalid with a formatted message.
func Invalidf(format string, args ...any) *Refusal { return Invalid(fmt.Sprintf(format, args...)) }

// Refusals of the spec's codes that more than one command can give.
var (
	ErrReceiptNotFound      = &Refusal{Kind: KindNotFound, Code: "not_found", Message: "Receipt not found"}
	ErrItemsRequired        = &Refusal{Kind: KindInvalid, Code: "items_required", Message: "At least one the service is required"}
	ErrSplitRequired        = &Refusal{Kind: KindForbidden, Code: "split_required", Message: "Split contract not configured for this merchant"}
	ErrPlatformRecipient    = &Refusal{Kind: KindInvalid, Code: "platform_recipient_not_configured", Message: "Platform recipient address not set up"}
	ErrInventoryNotFound    = &Refusal{Kind: KindInvalid, Code: "inventory_item_not_found", Message: "Product not found in inventory"}
	ErrIdempotencyConflict  = &Refusal{Kind: KindConflict, Code: "idempotency_conflict", Message: "This Idempotency-Key was used with a different request"}
	ErrReceiptExists        = &Refusal{Kind: KindConflict, Code: "conflict", Message: "A receipt with this id already exists"}
	ErrProcessorUnavailable = &Refusal{Kind: KindUpstream, Code: "processor_unavailable", Message: "The onramp processor did not start a session; try again"}
	ErrProcessorNotSetUp    = &Refusal{Kind: KindUnavailable, Code: "processor_not_configured", Message: "The card/bank onramp is not configured (PROCESSOR_API_URL)"}
	ErrDatastoreUnavailable = &Refusal{Kind: KindUnavailable, Code: "datastore_unavailable", Message: "The datastore is unavailable; retry shortly"}
	ErrPriceUnavailable     = &Refusal{Kind: KindUnavailable, Code: "price_unavailable", Message: "No price is set"}
)
