// Package failure is the catalog of payment failure codes (spec, "Payment failure codes"): each
// branded code has a category, a description and the action a merchant should take, and the
// processor's own codes map onto them. An unknown cause gets one generic code; the provider's
// code is kept as it came and nothing is invented.
package failure

import "strings"

// Categories.
const (
	CardDecline = "card_decline"
	Compliance  = "compliance"
	Limits      = "limits"
	Blockchain  = "blockchain"
	Session     = "session"
	Unknown     = "unknown"
)

// Generic is the code of a failure whose cause is not known.
const Generic = "PORTAL_PAY_FAILED"

// Code is one catalog entry.
type Code struct {
	Code        string
	Category    string
	Description string
	Action      string
}

var catalog = map[string]Code{}

func add(category, code, description, action string) {
	catalog[code] = Code{Code: code, Category: category, Description: description, Action: action}
}

func init() {
	retry := "Ask the customer to try again or use another payment method."
	add(CardDecline, "PORTAL_PAY_INSUFFICIENT_FUNDS", "The card has insufficient funds.", "Ask the customer to use another card or payment method.")
	add(CardDecline, "PORTAL_PAY_CARD_DECLINED", "The card issuer declined the payment.", "Ask the customer to contact their bank or use another card.")
	add(CardDecline, "PORTAL_PAY_EXPIRED_CARD", "The card has expired.", "Ask the customer to use a valid card.")
	add(CardDecline, "PORTAL_PAY_INCORRECT_CVC", "The card's security code was incorrect.", "Ask the customer to re-enter the card details.")
	add(CardDecline, "PORTAL_PAY_INCORRECT_NUMBER", "The card number was incorrect.", "Ask the customer to re-enter the card details.")
	add(CardDecline, "PORTAL_PAY_DO_NOT_HONOR", "The issuer declined without a reason (do not honor).", "Ask the customer to contact their bank or use another card.")
	add(CardDecline, "PORTAL_PAY_FRAUD_BLOCKED", "The payment was blocked as suspected fraud.", "Do not retry automatically; the customer may contact their bank.")
	add(CardDecline, "PORTAL_PAY_3DS_FAILED", "3-D Secure authentication failed.", "Ask the customer to retry and complete the bank's verification.")
	add(CardDecline, "PORTAL_PAY_BANK_INSTITUTION_BLOCK", "The customer's bank blocks payments to crypto services.", "Ask the customer to use another bank or pay by crypto wallet.")
	add(Compliance, "PORTAL_PAY_TRANSACTION_BLOCKED", "The processor blocked the transaction; this is not retryable.", "Do not retry and do not assume fraud or ask for extra identity verification; offer another payment method.")
	add(Compliance, "PORTAL_KYC_REQUIRED", "Identity verification level 0 is required (name and address).", "Ask the customer to complete identity verification.")
	add(Compliance, "PORTAL_KYC_STEP_UP_REQUIRED", "Identity verification level 1 is required (date of birth and tax id).", "Ask the customer to complete the additional verification.")
	add(Compliance, "PORTAL_KYC_DOC_REQUIRED", "Identity verification level 2 is required (photo id and selfie).", "Ask the customer to upload a photo id and selfie.")
	add(Compliance, "PORTAL_KYC_DOC_UNREADABLE", "The identity document could not be read.", "Ask the customer to upload a clearer document.")
	add(Compliance, "PORTAL_KYC_DOB_MISMATCH", "The date of birth does not match the records.", "Ask the customer to check their details.")
	add(Compliance, "PORTAL_KYC_SANCTIONS_BLOCKED", "The customer failed sanctions screening.", "Do not retry; this customer cannot pay through the onramp.")
	add(Compliance, "PORTAL_KYC_UNDERAGE", "The customer is under the minimum age of 18.", "Do not retry; the customer cannot pay through the onramp.")
	add(Compliance, "PORTAL_REGION_UNSUPPORTED", "The customer's region is not supported.", "Offer payment by crypto wallet.")
	add(Limits, "PORTAL_LIMIT_EXCEEDED", "The amount is above the customer's verification tier limit.", "Ask the customer to verify further or pay a smaller amount.")
	add(Limits, "PORTAL_LIMIT_AMOUNT_ABOVE_MAX", "The amount is above the single-transaction maximum.", "Split the order or offer payment by crypto wallet.")
	add(Limits, "PORTAL_LIMIT_AMOUNT_BELOW_MIN", "The amount is below the minimum.", "Offer payment by crypto wallet.")
	add(Blockchain, "PORTAL_CHAIN_INSUFFICIENT_BALANCE", "The wallet's balance was insufficient.", "Ask the customer to fund the wallet and retry.")
	add(Blockchain, "PORTAL_CHAIN_USER_REJECTED", "The customer rejected the transaction in the wallet.", retry)
	add(Blockchain, "PORTAL_CHAIN_SLIPPAGE_EXCEEDED", "The price moved beyond the allowed slippage.", retry)
	add(Blockchain, "PORTAL_CHAIN_TX_REVERTED", "The transaction reverted on chain.", retry)
	add(Blockchain, "PORTAL_CHAIN_WALLET_MISMATCH", "The payment came from a different wallet than expected.", "Ask the customer to pay from the connected wallet.")
	add(Session, "PORTAL_SESSION_ABANDONED", "The customer left the checkout.", "Send the payment link again if the customer still wants to pay.")
	add(Session, "PORTAL_SESSION_EXPIRED", "The checkout session expired.", "Start a new payment.")
	add(Session, "PORTAL_SESSION_CANCELLED", "The checkout session was cancelled.", "Start a new payment if the customer still wants to pay.")
	add(Unknown, Generic, "The payment failed for a reason the processor did not give.", retry)
}

// processorCodes maps the processor's error codes onto branded codes.
var processorCodes = map[string]string{
	"crypto_onramp_transaction_blocked": "PORTAL_PAY_TRANSACTION_BLOCKED",
	"transaction_blocked":               "PORTAL_PAY_TRANSACTION_BLOCKED",
	"insufficient_funds":                "PORTAL_PAY_INSUFFICIENT_FUNDS",
	"card_declined":                     "PORTAL_PAY_CARD_DECLINED",
	"generic_decline":                   "PORTAL_PAY_CARD_DECLINED",
	"expired_card":                      "PORTAL_PAY_EXPIRED_CARD",
	"incorrect_cvc":                     "PORTAL_PAY_INCORRECT_CVC",
	"invalid_cvc":                       "PORTAL_PAY_INCORRECT_CVC",
	"incorrect_number":                  "PORTAL_PAY_INCORRECT_NUMBER",
	"invalid_number":                    "PORTAL_PAY_INCORRECT_NUMBER",
	"do_not_honor":                      "PORTAL_PAY_DO_NOT_HONOR",
	"fraudulent":                        "PORTAL_PAY_FRAUD_BLOCKED",
	"authentication_required":           "PORTAL_PAY_3DS_FAILED",
	"three_d_secure_failed":             "PORTAL_PAY_3DS_FAILED",
	"bank_institution_block":            "PORTAL_PAY_BANK_INSTITUTION_BLOCK",
	"kyc_required":                      "PORTAL_KYC_REQUIRED",
	"kyc_level_0_required":              "PORTAL_KYC_REQUIRED",
	"kyc_step_up_required":              "PORTAL_KYC_STEP_UP_REQUIRED",
	"kyc_level_1_required":              "PORTAL_KYC_STEP_UP_REQUIRED",
	"kyc_document_required":             "PORTAL_KYC_DOC_REQUIRED",
	"kyc_level_2_required":              "PORTAL_KYC_DOC_REQUIRED",
	"kyc_document_unreadable":           "PORTAL_KYC_DOC_UNREADABLE",
	"kyc_dob_mismatch":                  "PORTAL_KYC_DOB_MISMATCH",
	"sanctions_blocked":                 "PORTAL_KYC_SANCTIONS_BLOCKED",
	"underage":                          "PORTAL_KYC_UNDERAGE",
	"unsupported_region":                "PORTAL_REGION_UNSUPPORTED",
	"region_unsupported":                "PORTAL_REGION_UNSUPPORTED",
	"limit_exceeded":                    "PORTAL_LIMIT_EXCEEDED",
	"amount_too_large":                  "PORTAL_LIMIT_AMOUNT_ABOVE_MAX",
	"amount_too_small":                  "PORTAL_LIMIT_AMOUNT_BELOW_MIN",
	"session_expired":                   "PORTAL_SESSION_EXPIRED",
	"session_cancelled":                 "PORTAL_SESSION_CANCELLED",
	"session_abandoned":                 "PORTAL_SESSION_ABANDONED",
}

// Lookup returns the catalog entry of a branded code.
func Lookup(code string) (Code, bool) {
	c, ok := catalog[code]
	return c, ok
}

// FromProcessor maps a processor failure onto the catalog. status is the processor's terminal
// status (rejected, expired, cancelled); errorCode its structured code, if any. Expired and
// cancelled sessions without a more specific code map to the session codes; anything unknown to
// the generic code.
func FromProcessor(status, errorCode string) Code {
	if code, ok := processorCodes[strings.ToLower(strings.TrimSpace(errorCode))]; ok {
		return catalog[code]
	}
	if c, ok := catalog[strings.ToUpper(errorCode)]; ok { // already a branded code
		return c
	}
	switch status {
	case "expired":
		return catalog["PORTAL_SESSION_EXPIRED"]
	case "cancelled":
		return catalog["PORTAL_SESSION_CANCELLED"]
	}
	return catalog[Generic]
}

// All returns every catalog entry.
func All() []Code {
	out := make([]Code, 0, len(catalog))
	for _, c := range catalog {
		out = append(out, c)
	}
	return out
}
