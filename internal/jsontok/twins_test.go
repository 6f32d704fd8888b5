package jsontok

import (
	"strings"
	"testing"
)

// String and its plain twin agree on every input, from every start.
func FuzzStringTwins(f *testing.F) {
	for _, s := range []string{`""`, `"abcdefghijklmnop"`, `"abcdefg\"hijklmn"x`, `"é1234567890"`, "\"12345678\x01\"", `"1234567\`, `"\\\\\\\\\\\\\\\\"`, "\"ab\xffcdefghij\"klmnopqrs\\\"\"", "\"abc\x7f\x80\x9f\xa2\xdc\"\""} {
		f.Add([]byte(s), 0)
	}
	f.Fuzz(func(t *testing.T, b []byte, i int) {
		if i < 0 || i >= len(b) {
			return
		}
		end, escaped, nonASCII, err := String(b, i)
		pend, pescaped, pnonASCII, perr := stringPlain(b, i)
		if end != pend || escaped != pescaped || nonASCII != pnonASCII || err != perr {
			t.Fatalf("String(%q, %d) = %d, %v, %v, %v; the plain twin: %d, %v, %v, %v", b, i, end, escaped, nonASCII, err, pend, pescaped, pnonASCII, perr)
		}
	})
}

// Space and its plain twin agree on every input, from every start.
func FuzzSpaceTwins(f *testing.F) {
	for _, s := range []string{"", " ", " \t\r\n x", "x", "\x00 ", "\x1f", "\x0b\x0c  ", "!"} {
		f.Add([]byte(s), 0)
	}
	f.Fuzz(func(t *testing.T, b []byte, i int) {
		if i < 0 || i > len(b) {
			return
		}
		if got, want := Space(b, i), spacePlain(b, i); got != want {
			t.Fatalf("Space(%q, %d) = %d; the plain twin: %d", b, i, got, want)
		}
	})
}

// Every byte value, in every lane of the first two eight-byte words,
// stops String as the plain twin says, and the string then ends where the
// twin says.
func TestStringEveryByteEveryLane(t *testing.T) {
	for pos := 1; pos <= 16; pos++ {
		for c := range 256 {
			b := []byte(`"` + strings.Repeat("a", 20) + `"` + strings.Repeat("z", 8))
			b[pos] = byte(c)
			end, escaped, nonASCII, err := String(b, 0)
			pend, pescaped, pnonASCII, perr := stringPlain(b, 0)
			if end != pend || escaped != pescaped || nonASCII != pnonASCII || err != perr {
				t.Fatalf("String(%q) = %d, %v, %v, %v; the plain twin: %d, %v, %v, %v", b, end, escaped, nonASCII, err, pend, pescaped, pnonASCII, perr)
			}
		}
	}
}

// Hand-counted ends: the closing quote in every lane, after a byte beyond
// ASCII, after an escape.
func TestStringEnds(t *testing.T) {
	for n := range 20 {
		// The opening quote, n letters and the closing quote: n+2 bytes.
		b := []byte(`"` + strings.Repeat("a", n) + `"` + "12345678")
		if end, escaped, nonASCII, err := String(b, 0); end != n+2 || escaped || nonASCII || err != nil {
			t.Errorf("String(%q) = %d, %v, %v, %v; want %d, plain", b, end, escaped, nonASCII, err, n+2)
		}
	}
	for _, c := range []struct {
		s                 string
		end               int
		escaped, nonASCII bool
		err               error
	}{
		{"\"abcdefgé\"12345678", 11, false, true, nil},              // 1 + 7 + 2 (é) + 1
		{`"abcdefg\"hijklmno"12345678`, 19, true, false, nil},       // 1 + 7 + 2 + 8 + 1
		{`"abcdefghijk\\"12345678`, 15, true, false, nil},           // 1 + 11 + 2 + 1
		{"\"abcdefghij\x1fklmnopq\"", 11, false, false, ErrControl}, // stopped at the control character, after 1 + 10
		{"\"abcdefghij\x7fklmnopq\"", 20, false, false, nil},        // 1 + 10 + 1 + 7 + 1: DEL is no control character in JSON
		{`"abcdefghijklmnopqr`, 19, false, false, ErrEnd},           // len(b)
		{`"abcdefghijklmnopq\`, 20, true, false, ErrEnd},            // the escape reaches past the end
	} {
		end, escaped, nonASCII, err := String([]byte(c.s), 0)
		if end != c.end || escaped != c.escaped || nonASCII != c.nonASCII || err != c.err {
			t.Errorf("String(%q) = %d, %v, %v, %v; want %d, %v, %v, %v", c.s, end, escaped, nonASCII, err, c.end, c.escaped, c.nonASCII, c.err)
		}
	}
}
