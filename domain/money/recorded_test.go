package money

import "testing"

// A rate is applied as it is recorded: Recorded is the rate String writes, so Apply of it gives
// what the recorded text gives.
func TestRateRecordedIsWhatStringWrites(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"0", "0.005", "0.0725", "0.0099999999996", "0.0050000000004", "0.0000000000005", "1/3", "0.123456789012", "0.1234567890125"} {
		r := MustRate(in)
		rec := r.Recorded()
		if rec.String() != r.String() || rec.Cmp(MustRate(r.String())) != 0 {
			t.Errorf("%s: Recorded %s (%s), String %s", in, rec.String(), rec.rat().RatString(), r.String())
		}
		for _, base := range []Cents{50, 100, 101, 1_000_000_07} {
			if got, want := rec.Apply(base), MustRate(r.String()).Apply(base); got != want {
				t.Errorf("%s of %s: %s, the recorded rate gives %s", in, base, got, want)
			}
		}
	}
}
