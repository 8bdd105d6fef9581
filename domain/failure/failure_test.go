package failure

import "testing"

func TestEverySpecCodeIsCatalogued(t *testing.T) {
	t.Parallel()
	spec := map[string][]string{
		CardDecline: {"PORTAL_PAY_INSUFFICIENT_FUNDS", "PORTAL_PAY_CARD_DECLINED", "PORTAL_PAY_EXPIRED_CARD", "PORTAL_PAY_INCORRECT_CVC",
			"PORTAL_PAY_INCORRECT_NUMBER", "PORTAL_PAY_DO_NOT_HONOR", "PORTAL_PAY_FRAUD_BLOCKED", "PORTAL_PAY_3DS_FAILED", "PORTAL_PAY_BANK_INSTITUTION_BLOCK"},
		Compliance: {"PORTAL_PAY_TRANSACTION_BLOCKED", "PORTAL_KYC_REQUIRED", "PORTAL_KYC_STEP_UP_REQUIRED", "PORTAL_KYC_DOC_REQUIRED",
			"PORTAL_KYC_DOC_UNREADABLE", "PORTAL_KYC_DOB_MISMATCH", "PORTAL_KYC_SANCTIONS_BLOCKED", "PORTAL_KYC_UNDERAGE", "PORTAL_REGION_UNSUPPORTED"},
		Limits:     {"PORTAL_LIMIT_EXCEEDED", "PORTAL_LIMIT_AMOUNT_ABOVE_MAX", "PORTAL_LIMIT_AMOUNT_BELOW_MIN"},
		Blockchain: {"PORTAL_CHAIN_INSUFFICIENT_BALANCE", "PORTAL_CHAIN_USER_REJECTED", "PORTAL_CHAIN_SLIPPAGE_EXCEEDED", "PORTAL_CHAIN_TX_REVERTED", "PORTAL_CHAIN_WALLET_MISMATCH"},
		Session:    {"PORTAL_SESSION_ABANDONED", "PORTAL_SESSION_EXPIRED", "PORTAL_SESSION_CANCELLED"},
	}
	for cat, codes := range spec {
		for _, code := range codes {
			c, ok := Lookup(code)
			if !ok || c.Category != cat || c.Description == "" || c.Action == "" {
				t.Errorf("%s: %+v", code, c)
			}
		}
	}
}

func TestFromProcessor(t *testing.T) {
	t.Parallel()
	cases := []struct{ status, code, want string }{
		{"rejected", "crypto_onramp_transaction_blocked", "PORTAL_PAY_TRANSACTION_BLOCKED"},
		{"rejected", "transaction_blocked", "PORTAL_PAY_TRANSACTION_BLOCKED"},
		{"rejected", "card_declined", "PORTAL_PAY_CARD_DECLINED"},
		{"rejected", "insufficient_funds", "PORTAL_PAY_INSUFFICIENT_FUNDS"},
		{"rejected", "kyc_level_2_required", "PORTAL_KYC_DOC_REQUIRED"},
		{"rejected", "amount_too_large", "PORTAL_LIMIT_AMOUNT_ABOVE_MAX"},
		{"rejected", "PORTAL_KYC_UNDERAGE", "PORTAL_KYC_UNDERAGE"},
		{"expired", "", "PORTAL_SESSION_EXPIRED"},
		{"cancelled", "", "PORTAL_SESSION_CANCELLED"},
		{"rejected", "", Generic},
		{"rejected", "some_new_code", Generic},
	}
	for _, c := range cases {
		if got := FromProcessor(c.status, c.code); got.Code != c.want {
			t.Errorf("%s/%s -> %s, want %s", c.status, c.code, got.Code, c.want)
		}
	}
}
