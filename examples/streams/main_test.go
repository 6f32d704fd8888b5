package main

import (
	"bytes"
	"testing"
)

// 1000/25 = 40 tokens/s a user; 64 × 1,000 tokens over 25 s = 2,560 tokens/s.
func TestRun(t *testing.T) {
	var b bytes.Buffer
	if err := run(&b); err != nil {
		t.Fatal(err)
	}
	want := `per user: TPOT 25ms, 40 tokens/s
aggregate: 64000 tokens over 25s = 2560 output tokens/s
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
