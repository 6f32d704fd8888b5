package decimal

import (
	"bytes"
	"errors"
	"math"
	"strconv"
	"testing"
)

// The exact path of the millisecond readers (Plain, then MillisNanos)
// reads what strconv reads from the same bytes, wherever it takes a
// decimal, and stops only where the decimal does.
func FuzzMillisNanos(f *testing.F) {
	for _, s := range []string{"99.406", "2251799813.685248,", "0.000001", "1.", ".5", "123456789012345", "1234567890123456", "5.1234567", "007.50x", "2251799813.685249"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, n, digits, decimals := Plain(b)
		v, ok := MillisNanos(m, digits, decimals)
		if !ok {
			return
		}
		ms, err := strconv.ParseFloat(string(b[:n]), 64)
		if want := int64(math.Round(ms * 1e6)); err != nil || v != want {
			t.Fatalf("%q: %d ns from %d bytes; strconv: %v ms (%d ns), %v", b, v, n, ms, want, err)
		}
		if n < len(b) && (b[n]-'0' <= 9 || b[n] == '.' && bytes.IndexByte(b[:n], '.') < 0) {
			t.Fatalf("%q: stopped at %d, before %q", b, n, b[n])
		}
	})
}

// Count reads what strconv reads from the same bytes, wherever it takes a
// count.
func FuzzCount(f *testing.F) {
	for _, s := range []string{"0", "123456789", "1234567890", "12,3", "007", ""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, n := Count(b)
		if n == 0 {
			return
		}
		if want, err := strconv.Atoi(string(b[:n])); err != nil || v != want {
			t.Fatalf("Count(%q) = %d, %d; strconv.Atoi(%q) = %d, %v", b, v, n, b[:n], want, err)
		}
		if n < len(b) && b[n]-'0' <= 9 {
			t.Fatalf("Count(%q) stopped at %d, before a digit", b, n)
		}
	})
}

// Parse gives the float64 strconv.ParseFloat gives for the number it
// reads, bit for bit, and reads a JSON number: what strconv takes that
// JSON does not (a leading '+' or point, "Inf", hexadecimal) is not read.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"0", "-0", "1.5", "99.406,", "0.1e-30", "12345678901234567890", "9007199254740993", "1e23", "1e400", "-1e-400", "1.", ".5", "+1", "1e", "-", "123.45678901234567e3]"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, n, ok := Parse(b)
		if !ok {
			return
		}
		want, err := strconv.ParseFloat(string(b[:n]), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			t.Fatalf("Parse(%q) read %q as %v; strconv: %v", b, b[:n], got, err)
		}
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("Parse(%q) = %v (%#x); strconv.ParseFloat(%q) = %v (%#x)", b, got, math.Float64bits(got), b[:n], want, math.Float64bits(want))
		}
		if c := b[0]; c != '-' && (c < '0' || c > '9') {
			t.Fatalf("Parse(%q) read a number starting with %q", b, c)
		}
	})
}
