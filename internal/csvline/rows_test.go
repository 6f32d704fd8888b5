package csvline

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// rows reads input with Rows, two fields a row, no row over max bytes, and
// returns what it saw.
func rows(input string, max int64) (seen []string, long int, err error) {
	lr := &Limiter{R: strings.NewReader(input), Max: max}
	cr := csv.NewReader(lr)
	cr.FieldsPerRecord = 2
	long, err = Rows(cr, lr, 0, func(f []string, line int) error {
		seen = append(seen, fmt.Sprintf("%d:%s", line, strings.Join(f, "|")))
		return nil
	}, func(f []string, pe *csv.ParseError) error {
		seen = append(seen, fmt.Sprintf("%d:%d bad %v %q", pe.Line, pe.Column, errors.Is(pe.Err, csv.ErrFieldCount), f))
		return nil
	})
	return seen, long, err
}

func TestRows(t *testing.T) {
	seen, long, err := rows("1,2\n3\n\"4\n4\",5\n", 100)
	want := `[1:1|2 2:1 bad true ["3"] 3:4` + "\n" + `4|5]`
	if fmt.Sprint(seen) != want || long != 0 || err != nil {
		t.Errorf("Rows: %q, %d, %v; want %q, 0, nil", seen, long, err, want)
	}
	// The second row, from line 2, is over 5,000 bytes (the limiter sees
	// the reads of encoding/csv's buffer, 4 KiB, not each row's bytes).
	if seen, long, err := rows("1,2\n"+strings.Repeat("3", 10_000)+",4\n5,6\n", 5_000); long != 2 || err != nil || len(seen) != 1 {
		t.Errorf("Rows of a long row: %q, %d, %v; want one row, long at 2", seen, long, err)
	}
}

type failing struct{}

func (failing) Read([]byte) (int, error) { return 0, io.ErrUnexpectedEOF }

func TestRowsReadError(t *testing.T) {
	lr := &Limiter{R: failing{}, Max: 100}
	cr := csv.NewReader(lr)
	_, err := Rows(cr, lr, 0, func([]string, int) error { return nil }, func([]string, *csv.ParseError) error { return nil })
	var re *ReadError
	if !errors.As(err, &re) || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("Rows of a failing reader: %v; want a *ReadError of io.ErrUnexpectedEOF", err)
	}
	// A callback's error ends reading as it is.
	stop := errors.New("stop")
	lr = &Limiter{R: strings.NewReader("1,2\n3,4\n"), Max: 100}
	cr = csv.NewReader(lr)
	n := 0
	_, err = Rows(cr, lr, 0, func([]string, int) error { n++; return stop }, nil)
	if err != stop || n != 1 {
		t.Errorf("Rows with a failing callback: %v after %d rows; want stop after 1", err, n)
	}
}

// Limiter.Cut finds a last row that the input ends inside, without a
// newline: whole, short of fields or inside a quoted field, but not one
// whose quote is closed and followed by a character, nor one that ends its
// line.
func TestLimiterCut(t *testing.T) {
	for in, want := range map[string]string{
		"1,2\n3":             `["3"] line 2, 1 bytes`,
		"1,2\n3,4":           `["3" "4"] line 2, 3 bytes`,
		"1,2\n3,\"x":         `["3" ""] line 2, 4 bytes`,
		"1,2\n3,\"x\r":       `["3" ""] line 2, 5 bytes`,
		"1,2\n3,\"x\ny z":    `["3" ""] line 3, 3 bytes`,
		"1,2\n\"3\n4\"":      `["3\n4"] line 3, 2 bytes`,
		"1,2\n3,\"x\"y":      "none",
		"1,2\n3\n":           "none",
		"1,2\n3,\"x\ny\n":    "none",
		"1,2\n3,4\n5,6\n7,8": `["7" "8"] line 4, 3 bytes`,
	} {
		lr := &Limiter{R: strings.NewReader(in), Max: 100}
		cr := csv.NewReader(lr)
		cr.FieldsPerRecord = 2
		got := "none"
		note := func(f []string, pe *csv.ParseError) {
			if present, line, n, ok := lr.Cut(cr, f, pe); ok {
				got = fmt.Sprintf("%q line %d, %d bytes", present, line, n)
			}
		}
		if _, err := Rows(cr, lr, 0, func(f []string, _ int) error { note(f, nil); return nil },
			func(f []string, pe *csv.ParseError) error { note(f, pe); return nil }); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%q: %s, want %s", in, got, want)
		}
	}
}

// Fence stops at the first line with an open quote, or else at a last
// line without a newline.
func TestFence(t *testing.T) {
	for in, want := range map[string]int{"a\nb": 2, "a\nb\n": -1, "a\n\"b\nc": 2, "": -1, "ab": 0, "a\r\n": -1} {
		if got := Fence([]byte(in)); got != want {
			t.Errorf("Fence(%q) = %d, want %d", in, got, want)
		}
	}
}
