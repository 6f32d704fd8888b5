package jsontok

import (
	"encoding/json"
	"errors"
	"strconv"
	"testing"
)

// String ends a string where encoding/json does: a prefix of b is a JSON
// string only if String ends there without an error; a plain string (no
// escapes, ASCII) is its bytes between the quotes.
func FuzzString(f *testing.F) {
	for _, s := range []string{`""`, `"abc",`, `"a\"b"x`, `"\u00e9"`, "\"é\"", "\"a\x01\"", `"abc`, `"\`, `"a\\"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 || b[0] != '"' {
			return
		}
		end, escaped, nonASCII, err := String(b, 0)
		for k := 2; k <= len(b); k++ {
			var s string
			if b[k-1] != '"' || json.Unmarshal(b[:k], &s) != nil { // encoding/json allows white space after
				continue
			}
			if err != nil || k != end {
				t.Fatalf("String(%q) = %d, %v; encoding/json reads a string of %d bytes", b, end, err, k)
			}
			if !escaped && !nonASCII && s != string(b[1:end-1]) {
				t.Fatalf("String(%q): plain, but encoding/json decodes %q", b, s)
			}
		}
		if err != nil && !errors.Is(err, ErrEnd) && !errors.Is(err, ErrControl) {
			t.Fatalf("String(%q): %v", b, err)
		}
	})
}

// Whole reads what strconv.ParseInt reads, and says why where it does not.
func FuzzWhole(f *testing.F) {
	for _, s := range []string{"0", "-0", "12,", "007", "1.5", "1e3", "-", "9223372036854775807", "9223372036854775808", "-9223372036854775808", "123456789012345678901"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, end, why := Whole(b, 0)
		text := string(b[:end])
		want, err := strconv.ParseInt(text, 10, 64)
		switch why {
		case WholeOK:
			if err != nil || v != want {
				t.Fatalf("Whole(%q) = %d; strconv: %d, %v", b, v, want, err)
			}
			if end < len(b) && (b[end]-'0' <= 9 || b[end] == '.' || b[end] == 'e' || b[end] == 'E') {
				t.Fatalf("Whole(%q) stopped at %d", b, end)
			}
		case OutOfRange:
			if !errors.Is(err, strconv.ErrRange) {
				t.Fatalf("Whole(%q): out of range; strconv: %d, %v", b, want, err)
			}
		case NoDigits:
			if err == nil {
				t.Fatalf("Whole(%q): no digits; strconv reads %d", b, want)
			}
		}
	})
}

// ListUint reads what Whole reads, where it reads anything.
func FuzzListUint(f *testing.F) {
	for _, s := range []string{"0,", "12345678]", "123456789012345678,", "1234567890123456789,", "01,", "5", "99]"} {
		f.Add([]byte(s), uint64(1)<<62)
	}
	f.Fuzz(func(t *testing.T, b []byte, max uint64) {
		u, end, ok := ListUint(b, 0, max)
		if !ok {
			if end != 0 {
				t.Fatalf("ListUint(%q) moved to %d without reading", b, end)
			}
			return
		}
		v, wend, why := Whole(b, 0)
		if why != WholeOK || uint64(v) != u || wend != end || u > max || (b[end] != ',' && b[end] != ']') {
			t.Fatalf("ListUint(%q) = %d, %d; Whole: %d, %d, %v", b, u, end, v, wend, why)
		}
	})
}
