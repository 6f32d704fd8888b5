package csvline

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// Header takes the first line that is not blank, or leaves a header whose
// quotes go past its line to encoding/csv, and gives back the rest.
func TestHeader(t *testing.T) {
	for _, c := range []struct{ in, head, rest string }{
		{"a,b\n1,2\n", "a,b\n", "1,2\n"},
		{"\n\r\na,b\r\n1,2", "\n\r\na,b\r\n", "1,2"},
		{"a,b", "a,b", ""},
		{"\"a\nb\",c\n1,2\n", "", "\"a\nb\",c\n1,2\n"},
		{"\"a,b", "", "\"a,b"},
	} {
		for _, r := range []io.Reader{strings.NewReader(c.in), iotest.OneByteReader(strings.NewReader(c.in))} {
			head, rest, err := Header(r, 1<<10)
			if err != nil {
				t.Fatalf("%q: %v", c.in, err)
			}
			b, _ := io.ReadAll(rest)
			if string(head) != c.head || string(b) != c.rest {
				t.Errorf("%q: head %q, rest %q; want %q, %q", c.in, head, b, c.head, c.rest)
			}
		}
	}
}

// A header without end is ErrLongRow after limit+1 bytes at most.
func TestHeaderLong(t *testing.T) {
	const limit = 1 << 20
	n := 0
	_, _, err := Header(readFunc(func(p []byte) (int, error) { n += len(p); return len(p), nil }), limit)
	if !errors.Is(err, ErrLongRow) || n > limit+1 {
		t.Fatalf("%v after %d bytes; want ErrLongRow after at most %d", err, n, limit+1)
	}
}

type readFunc func([]byte) (int, error)

func (f readFunc) Read(p []byte) (int, error) { return f(p) }

// OpenQuote finds the first line with an odd number of quotes.
func TestOpenQuote(t *testing.T) {
	for in, want := range map[string]int{"a,b\n": -1, "\"a\",b\n\"c\n": 6, "x\n\"\"\"\ny": 2, "": -1, "a\"": 0} {
		if got := OpenQuote([]byte(in)); got != want {
			t.Errorf("OpenQuote(%q) = %d, want %d", in, got, want)
		}
	}
}

// A Limiter fails once more than Max bytes were read past Mark.
func TestLimiter(t *testing.T) {
	l := &Limiter{R: strings.NewReader(strings.Repeat("x", 100)), Max: 10}
	buf := make([]byte, 8)
	for range 2 { // 16 bytes read: over 10, but only found before the next read
		if _, err := l.Read(buf); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.Read(buf); !errors.Is(err, ErrLongRow) {
		t.Fatalf("after 16 bytes from mark 0: %v, want ErrLongRow", err)
	}
	l.Mark = 16
	if _, err := l.Read(buf); err != nil {
		t.Fatalf("after the mark moved: %v", err)
	}
}
