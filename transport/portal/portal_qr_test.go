package portal_test

import (
	"bytes"
	"image/png"
	"testing"

	"github.com/skip2/go-qrcode"

	"github.com/payledger/payledger/transport/portal"
)

// TestQRCodesAreDrawnAtWholePixels (stop 67): the payment request's QR code was scaled to 320
// pixels whatever its version, so a version-8 code (57 modules with its quiet zone) had modules of
// 5 and 6 pixels, and about one payment URI in a hundred could not be read (these five, found by
// drawing 400 random ones; TestPortalRequestAsksForTheRest failed on such a deposit address).
// Each module is now a whole number of pixels, within 320.
func TestQRCodesAreDrawnAtWholePixels(t *testing.T) {
	t.Parallel()
	const token = "ethereum:0xAbCdEf0123456789abcdef0123456789ABCDEF01@1337/transfer?address="
	for _, uri := range []string{
		token + "0x8c9b497111c5e1cb492ca1bbce85790ee8da9ab8&uint256=2340011",
		token + "0xe463d9671874412128a51d92bdb359fda1e6fb66&uint256=2340191",
		token + "0x74e07349be237e3753ae6db67105d85595655b58&uint256=2340208",
		token + "0x4215e785aadfc6242bd90834e81fc250320d3f84&uint256=2340329",
		token + "0xe004a4c4e7fed0addbd05bac5c3cd65fb3b5aba4&uint256=2340367",
	} {
		b, err := portal.QRPNG(uri)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		q, _ := qrcode.New(uri, qrcode.Medium)
		side, modules := img.Bounds().Dx(), 17+4*q.VersionNumber+8
		if side > 320 || side%modules != 0 {
			t.Fatalf("a %d-pixel code of %d modules: want at most 320 pixels, whole pixels a module", side, modules)
		}
		if got := qrText(t, b); got != uri {
			t.Fatalf("the code reads %q, want %q", got, uri)
		}
	}
}
