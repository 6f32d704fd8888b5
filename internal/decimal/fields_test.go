package decimal

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// maxTime is the root's bound on times, in nanoseconds.
const maxTime = 1 << 61

// Millis and Int32 give exactly what their plain twins give, failures
// included.
func TestFieldTwins(t *testing.T) {
	for _, s := range []string{"", "0", "-0", "+0", "1", "99.406", "0.1", "0.000001", "0.0000005", "0.0000015",
		"123456789012345", "1234567890123456", ".5", "5.", ".", "-", "+", "1.2.3", "1e3", "nan", "Inf",
		"9223372036854.775807", "2305843009213.693952", "-2305843009213.693952", "2305843009213.693953",
		"0x10", "1_000", " 1", "1 ", "999999999999999", "0.123456789012345"} {
		want, werr := MillisPlain(s, maxTime)
		got, gerr := Millis([]byte(s), maxTime)
		if got != want || gerr != werr {
			t.Errorf("Millis(%q) = %v, %v; MillisPlain gives %v, %v", s, got, gerr, want, werr)
		}
	}
	// Around the bound of the whole-nanosecond path, 2⁵¹ ns = 2251799813.685248 ms, and at every number of
	// decimals: random decimals give what strconv gives.
	for _, s := range []string{"2251799813.685247", "2251799813.685248", "-2251799813.685248", "2251799813.68525",
		"2251799813.6852479", "225179981368.5248", "0.000000", "000.5", "-0.000001"} {
		want, werr := MillisPlain(s, maxTime)
		if got, gerr := Millis([]byte(s), maxTime); got != want || gerr != werr {
			t.Errorf("Millis(%q) = %v, %v; MillisPlain gives %v, %v", s, got, gerr, want, werr)
		}
	}
	rng := rand.New(rand.NewPCG(7, 7))
	for range 200_000 {
		digits := strconv.FormatUint(rng.Uint64()>>rng.IntN(64), 10)
		if len(digits) > 15 {
			digits = digits[:1+rng.IntN(15)]
		}
		at := rng.IntN(len(digits) + 1)
		s := digits[:at] + "." + digits[at:]
		if rng.IntN(2) == 0 {
			s = "-" + s
		}
		want, werr := MillisPlain(s, maxTime)
		if got, gerr := Millis([]byte(s), maxTime); got != want || gerr != werr {
			t.Fatalf("Millis(%q) = %v, %v; MillisPlain gives %v, %v", s, got, gerr, want, werr)
		}
	}
	for _, s := range []string{"", "0", "-0", "+7", "-1", "123456789", "1234567890", "2147483647", "2147483648",
		"-2147483648", "-2147483649", "00000000001", "1.0", "x", "-", "+", " 1"} {
		want, werr := Int32Plain(s)
		got, gerr := Int32([]byte(s))
		if got != want || gerr != werr {
			t.Errorf("Int32(%q) = %v, %v; Int32Plain gives %v, %v", s, got, gerr, want, werr)
		}
	}
}

// parseMillisBytes gives what MillisPlain gives, on any field.
func FuzzMillis(f *testing.F) {
	for _, s := range []string{"99.406", "2251799813.685248", "-0.000001", "1e3", "0.0000005", "nan", "+.5", "1.", ".", "", "-", "1.2.3", "1..2", "12a", "007.50"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		want, werr := MillisPlain(string(b), maxTime)
		if got, gerr := Millis(b, maxTime); got != want || gerr != werr {
			t.Fatalf("Millis(%q) = %v, %v; MillisPlain gives %v, %v", b, got, gerr, want, werr)
		}
	})
}

func TestFormatMillis(t *testing.T) {
	for ns, want := range map[int64]string{
		0: "0", 1: "0.000001", 36_250_000: "36.25", -1_500_000: "-1.5", 265_000_000: "265",
		1<<63 - 1: "9223372036854.775807", -1 << 63: "-9223372036854.775808",
	} {
		if got := FormatMillis(ns); got != want {
			t.Errorf("FormatMillis(%d) = %q, want %q", ns, got, want)
		}
	}
}
