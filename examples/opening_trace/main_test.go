package main

import (
	"bytes"
	"testing"
)

// The expected values are the lesson's: TTFT 120 ms, ITLs 35/37/36/37 ms,
// TPOT 36.25 ms, E2E 265 ms, user TPS ≈ 27.6, Databricks 301.25 ms.
func TestRun(t *testing.T) {
	var b bytes.Buffer
	if err := run(&b); err != nil {
		t.Fatal(err)
	}
	want := `TTFT = 120ms
gaps = [35ms 37ms 36ms 37ms] (token basis: 5 chunks, n = 5)
TPOT = (265ms − 120ms)/(5 − 1) = 36.25ms
E2E = 265ms = 120ms + 4 × 36.25ms
user TPS = 4/145ms = 27.6 tokens/s
Databricks: 120ms + 5 × 36.25ms = 301.25ms, over the exact 265ms by 36.25ms (1/n = 20%)
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
