package eventstore

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

// compactCases are JSON texts, valid or not, compact or not, that the fast paths must store (or
// refuse) exactly as encoding/json does.
var compactCases = []string{
	`{}`, `[]`, `""`, `0`, `-0`, `1.5e+10`, `-12.25E-3`, `true`, `false`, `null`,
	`{"a":1,"b":[true,false,null],"c":{"d":"e\"\\\/\b\f\n\r\t\u00e9\uD83D\uDE00"}}`,
	`{"receiptId":"rcpt_1","lineItems":[{"label":"Latte <b>&","qty":2}],"metadata":{"k":"\u2028"},"totalCents":4072}`,
	`"bad \xff utf-8"`, `{"a": 1}`, ` {"a":1}`, `{"a":1} `, "[1,\n2]", `{"a":"x y"}`,
	`{`, `}`, `[1,]`, `{"a":1,}`, `{"a"1}`, `{a:1}`, `01`, `1.`, `.5`, `-`, `1e`, `1e+`, `+1`, `tru`, `truex`, `nul`,
	`"\x"`, `"\u12G4"`, "\"a\x01b\"", `"unterminated`, `[1 2]`, `{"a":1}{}`, `1 2`, `[[[[[[[[]]]]]]]]`,
	string(bytes.Repeat([]byte("["), 100)) + string(bytes.Repeat([]byte("]"), 100)),
	string(bytes.Repeat([]byte("["), 20000)) + string(bytes.Repeat([]byte("]"), 20000)),
}

// TestCompactDataIsJSONCompact: compactData stores what json.Compact stores, and refuses what it
// refuses; validJSON is json.Valid.
func TestCompactDataIsJSONCompact(t *testing.T) {
	for _, c := range compactCases {
		checkCompact(t, []byte(c))
	}
}

func FuzzCompactData(f *testing.F) {
	for _, c := range compactCases {
		f.Add([]byte(c))
	}
	f.Fuzz(checkCompact)
}

func checkCompact(t *testing.T, in []byte) {
	var want bytes.Buffer
	wantErr := json.Compact(&want, in)
	got, err := compactData(in)
	if (err != nil) != (wantErr != nil) || (err != nil && err.Error() != wantErr.Error()) {
		t.Fatalf("compactData(%q) error %v, want %v", in, err, wantErr)
	}
	if err == nil && !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("compactData(%q) = %q, want %q", in, got, want.Bytes())
	}
	if validJSON(in) != json.Valid(in) {
		t.Fatalf("validJSON(%q) = %v, want %v", in, !json.Valid(in), json.Valid(in))
	}
	if len(in) > 0 && len(got) > 0 && &got[0] == &in[0] {
		t.Fatalf("compactData(%q) shares its input", in)
	}
}

// TestEncodeMetadataIsJSONMarshal: metadata is stored as json.Marshal writes it.
func TestEncodeMetadataIsJSONMarshal(t *testing.T) {
	for _, m := range []Metadata{{}, {CorrelationID: "c1"}, {Source: "api"}, {CorrelationID: "0f9a-x", CausationID: "cause", Actor: "merchant:0xabc", Source: "api"},
		{Actor: "a<b>&c"}, {Actor: `q"uote\`}, {Source: "é"}, {Source: "bad \xff"}, {CausationID: "tab\tx"}, {Actor: "~ !#$%'()*+,-./:;=?@[]^_`{|}"}} {
		want, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		got, err := encodeMetadata(m)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("encodeMetadata(%+v) = %s, %v; want %s", m, got, err, want)
		}
	}
}

func BenchmarkCompactData(b *testing.B) {
	data := []byte(`{"receiptId":"rcpt_0193a1b2c3d4e5f6a7b8c9d0","merchantWallet":"0xd52266c5e4280bcc10fb98e39dfd65a009f3068e","source":"order","currency":"USD","lineItems":[{"kind":"item","sku":"latte","label":"Latte","qty":2,"unitCents":450,"amountCents":900},{"kind":"item","sku":"beans","label":"Coffee beans 1 kg","qty":1,"unitCents":2400,"amountCents":2400},{"kind":"item","sku":"mug","label":"Mug","qty":1,"unitCents":1200,"amountCents":1200}],"subtotalCents":4500,"taxCents":326,"feeCents":0,"platformFeeCents":0,"merchantFeeCents":0,"totalCents":4826,"jurisdictionCode":"US-CA","taxRate":"0.0725","taxComponents":["state"],"feeRate":"0","brandName":"Acme Coffee","buyer":{},"createdAt":1764375000000}`)
	b.Run("fast", func(b *testing.B) {
		for b.Loop() {
			if _, err := compactData(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("json.Compact", func(b *testing.B) {
		for b.Loop() {
			var buf bytes.Buffer
			if err := json.Compact(&buf, data); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestPrepareStoresMarshaledDataAsIs: data marked Marshaled is stored as it is, without a copy;
// unmarked data is compacted into a copy; the same bytes hash the same either way.
func TestPrepareStoresMarshaledDataAsIs(t *testing.T) {
	data, err := json.Marshal(map[string]any{"receiptId": "rcpt_1", "lineItems": []int{1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	spaced := []byte(`{"lineItems": [1, 2], "receiptId": "rcpt_1"}`)
	now := time.Unix(1764375000, 0)
	recs, err := Prepare("s", 0, nil, now, []EventData{{Type: "A", Data: data, Marshaled: true}, {Type: "A", Data: spaced}})
	if err != nil {
		t.Fatal(err)
	}
	if &recs[0].Data[0] != &data[0] {
		t.Errorf("marshaled data was copied")
	}
	if !bytes.Equal(recs[1].Data, data) || &recs[1].Data[0] == &spaced[0] {
		t.Errorf("unmarked data stored as %q, want %q in a copy", recs[1].Data, data)
	}
	plain, err := Prepare("s", 0, nil, now, []EventData{{Type: "A", Data: data}})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(plain[0].Hash, recs[0].Hash) {
		t.Errorf("the same data hashes %x marked and %x unmarked", recs[0].Hash, plain[0].Hash)
	}
}
