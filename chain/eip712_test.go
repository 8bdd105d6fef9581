package chain

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
)

func sign(t *testing.T, td apitypes.TypedData, v27 bool) (string, string) {
	t.Helper()
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	hash, _, err := apitypes.TypedDataAndHash(td)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := crypto.Sign(hash, key)
	if err != nil {
		t.Fatal(err)
	}
	if v27 {
		sig[64] += 27
	}
	return strings.ToLower(crypto.PubkeyToAddress(key.PublicKey).Hex()), hexutil.Encode(sig)
}

func TestRecoverTypedDataSigner(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_800_000_000, 0)
	td := LoginTypedData(8453, "", "0x1111111111111111111111111111111111111111", "n-1", now, now.Add(5*time.Minute))
	for _, v27 := range []bool{false, true} {
		addr, sig := sign(t, td, v27)
		got, err := RecoverTypedDataSigner(td, sig)
		if err != nil || got != addr {
			t.Fatalf("v27=%v: recovered %s (%v), want %s", v27, got, err, addr)
		}
		other := LoginTypedData(8453, "", "0x1111111111111111111111111111111111111111", "n-2", now, now.Add(5*time.Minute))
		if got, _ := RecoverTypedDataSigner(other, sig); got == addr {
			t.Fatal("a signature over another nonce recovered the same signer")
		}
	}
	for _, bad := range []string{"", "0x12", "nothex", "0x" + strings.Repeat("00", 64) + "05"} {
		if _, err := RecoverTypedDataSigner(td, bad); !errors.Is(err, ErrBadSignature) {
			t.Errorf("%q: err = %v, want ErrBadSignature", bad, err)
		}
	}
}

// SignTypedData signs as eth_signTypedData_v4 returns it: v 27 or 28, recovered to the key's address.
func TestSignTypedData(t *testing.T) {
	t.Parallel()
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_800_000_000, 0)
	td := LoginTypedData(8453, "", "0x1111111111111111111111111111111111111111", "n-1", now, now.Add(5*time.Minute))
	sig, err := SignTypedData(td, key)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := hexutil.Decode(sig)
	got, err := RecoverTypedDataSigner(td, sig)
	if len(raw) != 65 || (raw[64] != 27 && raw[64] != 28) || err != nil || got != strings.ToLower(crypto.PubkeyToAddress(key.PublicKey).Hex()) {
		t.Fatalf("signature %s recovers %s, %v", sig, got, err)
	}
}
