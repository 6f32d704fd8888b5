package texttable

import (
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	rows := [][]string{{"metric", "n", "p50"}, {"TTFT", "12", "1.500"}, {"max gap/request", "3", "10.000"}}
	var b strings.Builder
	if err := Write(&b, rows, true); err != nil {
		t.Fatal(err)
	}
	// The first column's cells padded to 15 bytes, then every column
	// as wide as its widest cell and two spaces, the cells at its right.
	want := "  metric            n     p50\n" +
		"  TTFT             12   1.500\n" +
		"  max gap/request   3  10.000\n"
	if b.String() != want {
		t.Errorf("Write, left:\n%q\nwant\n%q", b.String(), want)
	}
	b.Reset()
	if err := Write(&b, rows[:2], false); err != nil {
		t.Fatal(err)
	}
	want = "  metric   n    p50\n" +
		"    TTFT  12  1.500\n"
	if b.String() != want {
		t.Errorf("Write:\n%q\nwant\n%q", b.String(), want)
	}
}
