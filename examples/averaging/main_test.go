package main

import (
	"bytes"
	"testing"
)

// A and B: (10 + 50)/2 = 30 ms against (99·10 + 50)/100 = 10.4 ms (the
// lesson). The mix: 80·3 = 240 and 20·199 = 3,980 gaps, 3,980/4,220 = 94.3 %;
// request-weighted 0.8·10 + 0.2·30 = 14 ms, gap-weighted
// (240·10 + 3,980·30)/4,220 = 28.8626 ms, shown to the microsecond.
func TestRun(t *testing.T) {
	var b bytes.Buffer
	if err := run(&b); err != nil {
		t.Fatal(err)
	}
	want := `A and B: mean TPOT (request-weighted) 30ms; mean ITL (gap-weighted) 10.4ms over 100 gaps
80×4 + 20×200 tokens: 4220 gaps, 3980 from the long requests (94.3%)
mean TPOT (request-weighted) 14ms; mean ITL (gap-weighted) 28.863ms
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
