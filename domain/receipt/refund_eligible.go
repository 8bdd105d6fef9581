package receipt

// CanRequestRefund reports whether a refund request without a transaction hash (what the
// dashboard's refund form sends: an amount, the whole unrefunded total by default, and a reason)
// would be accepted now. It asks Refund itself, so that the form is shown exactly when the domain
// takes it (a receipt with a refund already requested refuses another request without a hash).
func CanRequestRefund(s State) bool {
	_, err := Refund(s, 0, "eligibility", "", "", 0)
	return err == nil
}
