package commands_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
)

// TestMerchantReceiptIDForms: a chosen id's stored forms (stop 70). New receipts get 128 bits of
// the wallet's hash (m + 32 hex + _), receipts made before have 48 (m + 12 hex + _); the wallet's
// case does not matter; the two shapes never match each other, and the longest stays within 98
// characters of [A-Za-z0-9_-].
func TestMerchantReceiptIDForms(t *testing.T) {
	t.Parallel()
	const wallet = "0xAbCdEf0000000000000000000000000000000001"
	h := sha256.Sum256([]byte(strings.ToLower(wallet)))
	long := strings.Repeat("z", 64)
	for _, c := range []struct {
		name, got, want string
	}{
		{"current", commands.MerchantReceiptID(wallet, "inv-1001"), "m" + hex.EncodeToString(h[:16]) + "_inv-1001"},
		{"current, wallet in lower case", commands.MerchantReceiptID(strings.ToLower(wallet), "inv-1001"), "m" + hex.EncodeToString(h[:16]) + "_inv-1001"},
		{"legacy", commands.LegacyMerchantReceiptID(wallet, "inv-1001"), "m" + hex.EncodeToString(h[:6]) + "_inv-1001"},
		{"current, longest", commands.MerchantReceiptID(wallet, long), "m" + hex.EncodeToString(h[:16]) + "_" + long},
		{"lookup forms, current first", strings.Join(commands.MerchantReceiptIDs(wallet, "x"), " "),
			commands.MerchantReceiptID(wallet, "x") + " " + commands.LegacyMerchantReceiptID(wallet, "x")},
	} {
		if c.got != c.want {
			t.Errorf("%s: %q, want %q", c.name, c.got, c.want)
		}
	}
	if n := len(commands.MerchantReceiptID(wallet, long)); n != 98 {
		t.Errorf("the longest stored id has %d characters, want 98", n)
	}
	other := "0x" + strings.Repeat("9", 40)
	for _, c := range []struct {
		name string
		id   string
		in   bool
	}{
		{"own current", commands.MerchantReceiptID(wallet, "a"), true},
		{"own legacy", commands.LegacyMerchantReceiptID(wallet, "a"), true},
		{"another's current", commands.MerchantReceiptID(other, "a"), false},
		{"another's legacy", commands.LegacyMerchantReceiptID(other, "a"), false},
		{"a chosen id", "inv-1001", false},
		{"a generated id", "rcpt_0123456789abcdef0123456789", false},
	} {
		if got := commands.InMerchantNamespace(wallet, c.id); got != c.in {
			t.Errorf("%s %q in the namespace: %v, want %v", c.name, c.id, got, c.in)
		}
	}
}

// TestChosenReceiptIDsAcrossTheWidening: the compatibility rule of stop 70 through the handler.
// A receipt made before (stored at the 48-bit form) keeps answering its chosen id and its shown
// id; new chosen ids get the 128-bit form; a receipt at the 48-bit form that is another
// merchant's (what a wallet ground to share the prefix sees) neither blocks nor shows itself.
func TestChosenReceiptIDsAcrossTheWidening(t *testing.T) {
	t.Parallel()
	e := newOrderEnv(t, nil, payPlatform)
	victim, colliding := payMerchant, "0x"+strings.Repeat("e", 40)
	// Made before stop 70: the victim's own old receipt, and one of the victim's that a wallet
	// sharing its 48 bits would see in its own legacy namespace (written at the colliding
	// wallet's legacy id, as a real collision would put it).
	oldOwn := e.legacyChosen(victim, commands.LegacyMerchantReceiptID(victim, "inv-1"))
	shared := e.legacyChosen(victim, commands.LegacyMerchantReceiptID(colliding, "inv-2"))
	cases := []struct {
		name, merchant, id string
		want               string // the stored id, or "" with wantErr
		wantErr            error
	}{
		{"old chosen id again", victim, "inv-1", "", commands.ErrReceiptExists},
		{"old shown id again", victim, oldOwn, "", commands.ErrReceiptExists},
		{"new chosen id", victim, "inv-3", commands.MerchantReceiptID(victim, "inv-3"), nil},
		{"new chosen id again", victim, "inv-3", "", commands.ErrReceiptExists},
		{"new shown id again", victim, commands.MerchantReceiptID(victim, "inv-3"), "", commands.ErrReceiptExists},
		{"a free id of the legacy form", victim, commands.LegacyMerchantReceiptID(victim, "inv-4"), "", commands.Invalid("")},
		{"colliding: the victim's old chosen id", colliding, "inv-2", commands.MerchantReceiptID(colliding, "inv-2"), nil},
		{"colliding: the victim's old shown id", colliding, shared, "", commands.Invalid("")},
		{"colliding: a free id of its legacy form", colliding, commands.LegacyMerchantReceiptID(colliding, "inv-5"), "", commands.Invalid("")},
		{"colliding: the victim's new chosen id", colliding, "inv-3", commands.MerchantReceiptID(colliding, "inv-3"), nil},
		{"colliding: the victim's new shown id", colliding, commands.MerchantReceiptID(victim, "inv-3"), "", commands.Invalid("")},
		{"a chosen id of the current shape", victim, commands.MerchantReceiptID(colliding, "x"), "", commands.Invalid("")},
	}
	lines := []commands.ReceiptLine{{Label: "Tea", PriceUSD: amount("4")}}
	for _, c := range cases {
		got, err := e.direct.Handle(e.ctx, commands.CreateReceipt{Merchant: c.merchant, ID: c.id, Lines: &lines, TotalUSD: amount("4")})
		if c.wantErr != nil {
			if !errors.Is(err, c.wantErr) {
				t.Errorf("%s (%s): %v, want %v", c.name, c.id, err, c.wantErr)
			}
			continue
		}
		if err != nil || got.State.Receipt.ReceiptID != c.want {
			t.Errorf("%s (%s): %q %v, want %q", c.name, c.id, got.State.Receipt.ReceiptID, err, c.want)
		}
	}
}

// legacyChosen stores, as the service did before stop 70, merchant's receipt at id (a 48-bit
// namespaced id) and returns id.
func (e *orderEnv) legacyChosen(merchant, id string) string {
	e.t.Helper()
	g := receipt.Generated{ReceiptID: id, Merchant: merchant, Source: "direct", Currency: "USD", TaxRate: "0", TaxComponents: []string{},
		LineItems: []receipt.LineItem{{Kind: receipt.KindCustom, Label: "Tea", Amount: 400}}, Subtotal: 400, Total: 400}
	if _, _, err := commands.GenerateReceipt(e.ctx, e.store, e.at, eventstore.Metadata{}, g); err != nil {
		e.t.Fatalf("legacy receipt %s: %v", id, err)
	}
	return id
}
