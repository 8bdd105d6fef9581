package commands

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
)

// Caller-chosen receipt ids live in the merchant's own namespace: the stored id is a prefix
// derived from the merchant's wallet, "_", and the chosen id, so two merchants may both use
// "inv-1001" and neither learns of the other's (DESIGN 9).
//
// The compatibility rule (stop 70). Until stop 70 the prefix was "m" + 12 hex digits (48 bits)
// of the SHA-256 of the wallet: a wallet ground to share another's 48 bits (about 2^48 key
// generations) shared its namespace, and could take or probe its chosen ids. New receipts get
// "m" + 32 hex digits (128 bits) of the same hash. Stored ids are never rewritten, so:
//   - a chosen id the merchant already used under the old prefix (its receipt's merchant is this
//     merchant) still names that receipt: the same id again is that receipt (replay under its
//     Idempotency-Key, else 409), as before;
//   - otherwise the chosen id is stored under the new prefix, also when an old-prefix receipt of
//     that chosen id belongs to another merchant (a colliding wallet neither blocks nor sees it);
//   - an old-prefix id posted as it is shown names the caller's own receipt of that id (409 or
//     replay); any other old-prefix id is refused as the service's shape, whether or not a
//     receipt has it, so old-prefix ids are no longer made;
//   - lookups of a chosen id by the merchant (the dashboard's search and page) try both forms,
//     each within the merchant's own receipts.

// receiptIDRE is the shape of an id a caller may choose.
var receiptIDRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// generatedIDPrefix begins every id the service generates (NewReceiptID).
const generatedIDPrefix = "rcpt_"

// namespacedIDRE is the shape of every id MerchantReceiptID makes; legacyNamespacedIDRE that of
// the ids made before stop 70 (LegacyMerchantReceiptID). Neither matches the other: the "_"
// comes after 12 hex digits in one and after 32 in the other.
var (
	namespacedIDRE       = regexp.MustCompile(`^m[0-9a-f]{32}_`)
	legacyNamespacedIDRE = regexp.MustCompile(`^m[0-9a-f]{12}_`)
)

// MerchantReceiptID is the stored id of a new receipt whose id the merchant chose: "m" + 32 hex
// of the SHA-256 of its lowercased wallet (128 bits) + "_" + id. A receipt made before stop 70
// may be stored at LegacyMerchantReceiptID instead (see the compatibility rule above).
func MerchantReceiptID(merchant, id string) string {
	return merchantPrefix(merchant, 16) + id
}

// LegacyMerchantReceiptID is the stored id a chosen id got before stop 70 ("m" + 12 hex + "_" +
// id): only read, to find and answer the receipts made then.
func LegacyMerchantReceiptID(merchant, id string) string {
	return merchantPrefix(merchant, 6) + id
}

// MerchantReceiptIDs are the stored ids under which the merchant's receipt of the chosen id may
// be, the current form first. A lookup by them must stay within the merchant's own receipts: the
// legacy form may be another merchant's whose wallet shares its 48 bits.
func MerchantReceiptIDs(merchant, id string) []string {
	return []string{MerchantReceiptID(merchant, id), LegacyMerchantReceiptID(merchant, id)}
}

// InMerchantNamespace tells whether id begins with one of the merchant's namespace prefixes
// (current or legacy): it is then an id as shown, not an id the merchant chose.
func InMerchantNamespace(merchant, id string) bool {
	return strings.HasPrefix(id, MerchantReceiptID(merchant, "")) || strings.HasPrefix(id, LegacyMerchantReceiptID(merchant, ""))
}

func merchantPrefix(merchant string, bytes int) string {
	h := sha256.Sum256([]byte(strings.ToLower(merchant)))
	return "m" + hex.EncodeToString(h[:bytes]) + "_"
}

// storedID is the stored id of the id the caller chose ("" for a generated one). An id as the API
// shows the caller's receipts is taken as that very id (DESIGN 10, Receipt ids): the caller's own
// namespaced id is stored as it is (so the same id again is a conflict, not a second receipt), and
// a generated id (rcpt_...) of one of the caller's receipts is a conflict. The service's id shapes
// are reserved otherwise: another merchant's namespace, or a generated id the caller does not
// own, is invalid input, whether or not it exists (a caller never learns of others' receipts).
// Errors: Invalid, ErrReceiptExists, the store's.
func (h *CreateReceiptHandler) storedID(ctx context.Context, merchant, id string) (string, error) {
	if id == "" {
		return "", nil
	}
	// The caller's own namespaced id is longer than the id it chose (by 34 characters; 14 in the
	// legacy form), so it is recognised before the 64-character rule: a receipt made with a long
	// chosen id was shown with an id that, posted again, was 400 instead of 409.
	if own := MerchantReceiptID(merchant, ""); strings.HasPrefix(id, own) {
		if !receiptIDRE.MatchString(strings.TrimPrefix(id, own)) {
			return "", badChosenID()
		}
		return id, nil
	}
	if legacy := LegacyMerchantReceiptID(merchant, ""); strings.HasPrefix(id, legacy) {
		return h.legacyShownID(ctx, merchant, id, strings.TrimPrefix(id, legacy))
	}
	if !receiptIDRE.MatchString(id) {
		return "", badChosenID()
	}
	switch {
	case strings.HasPrefix(id, generatedIDPrefix):
		if owned, err := h.owns(ctx, merchant, id); err != nil || owned {
			return "", orExists(err)
		}
		return "", Invalid("ids beginning with rcpt_ are the service's own; choose another id")
	case legacyNamespacedIDRE.MatchString(id):
		return "", reservedShape()
	}
	return h.chosenStoredID(ctx, merchant, id)
}

// legacyShownID answers an id posted in the caller's legacy namespace (m + 12 hex + _ + rest):
// the caller's own receipt of that id is that very id (a conflict or its key's replay); any other
// is the service's shape, refused whether it is free or another merchant's (a wallet sharing the
// caller's 48 bits posts the same prefix), as new ids are no longer made in this form.
func (h *CreateReceiptHandler) legacyShownID(ctx context.Context, merchant, id, rest string) (string, error) {
	if !receiptIDRE.MatchString(rest) {
		return "", badChosenID()
	}
	owned, err := h.owns(ctx, merchant, id)
	if err != nil {
		return "", err
	}
	if !owned {
		return "", reservedShape()
	}
	return id, nil
}

// chosenStoredID is the stored id of a chosen id: its legacy form when the merchant's own receipt
// is stored there (made before stop 70: the same id again is that receipt), else the current
// form. A datastore that does not answer cannot tell: the current form, so that degraded mode
// still journals the receipt (docs/decisions.md, stop 70, names what that leaves).
func (h *CreateReceiptHandler) chosenStoredID(ctx context.Context, merchant, id string) (string, error) {
	legacy := LegacyMerchantReceiptID(merchant, id)
	owned, err := h.owns(ctx, merchant, legacy)
	if err != nil && !h.issuer.unavailable(err) {
		return "", err
	}
	if owned {
		return legacy, nil
	}
	if namespacedIDRE.MatchString(id) { // checked after the legacy lookup: such an id chosen before stop 70 still conflicts
		return "", reservedShape()
	}
	return MerchantReceiptID(merchant, id), nil
}

// owns tells whether receipt id exists and is the merchant's. Errors: the store's, wrapped.
func (h *CreateReceiptHandler) owns(ctx context.Context, merchant, id string) (bool, error) {
	loaded, err := LoadReceipt(ctx, h.issuer.store, id)
	if err != nil {
		return false, fmt.Errorf("read receipt %s: %w", id, err)
	}
	return loaded.State.Exists && strings.EqualFold(loaded.State.Receipt.Merchant, merchant), nil
}

func orExists(err error) error {
	if err != nil {
		return err
	}
	return ErrReceiptExists
}

func badChosenID() error { return Invalid("id must be 1-64 characters of letters, digits, _ and -") }

func reservedShape() error {
	return Invalid("ids beginning with m, 12 or 32 hex digits and _ are the service's own; choose another id")
}
