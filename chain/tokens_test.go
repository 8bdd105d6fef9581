package chain_test

import (
	"testing"

	"github.com/payledger/payledger/chain"
)

func TestParseTokens(t *testing.T) {
	t.Parallel()
	ok := "USDC=0x5FbDB2315678afecb367f032d93F642f64180aa3:6, usdt=0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512:6"
	got, err := chain.ParseTokens(ok)
	if err != nil || len(got) != 2 || got[1].Symbol != "USDT" || got[0].Decimals != 6 {
		t.Fatalf("ParseTokens(%q) = %+v, %v", ok, got, err)
	}
	if back := chain.FormatTokens(got); back != "USDC=0x5FbDB2315678afecb367f032d93F642f64180aa3:6,USDT=0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512:6" {
		t.Errorf("FormatTokens = %s", back)
	}
	if tok, found := chain.FindToken(got, "usdc"); !found || tok.Address != got[0].Address {
		t.Errorf("FindToken(usdc) = %+v, %v", tok, found)
	}
	if got, err := chain.ParseTokens(""); err != nil || len(got) != 0 {
		t.Errorf("empty: %+v, %v", got, err)
	}
	for _, bad := range []string{
		"USDC",
		"USDC=0x5FbDB2315678afecb367f032d93F642f64180aa3",
		"USDC=0x5FbDB2315678afecb367f032d93F642f64180a:6",
		"USDC=0x5FbDB2315678afecb367f032d93F642f64180aa3:x",
		"USDC=0x5FbDB2315678afecb367f032d93F642f64180aa3:37",
		"ETH=0x5FbDB2315678afecb367f032d93F642f64180aa3:18",
		"USDC=0x5FbDB2315678afecb367f032d93F642f64180aa3:6,usdc=0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512:6",
		"USDC=0x5FbDB2315678afecb367f032d93F642f64180aa3:6,USDT=0x5fbdb2315678afecb367f032d93f642f64180aa3:6",
	} {
		if _, err := chain.ParseTokens(bad); err == nil {
			t.Errorf("ParseTokens(%q) accepted", bad)
		}
	}
}
