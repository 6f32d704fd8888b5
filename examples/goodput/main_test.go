package main

import (
	"bytes"
	"testing"
)

// The lesson's table: A and B pass, C is late, D is slow, E timed out; 2/5 =
// 40 %, 2/10 s = 0.2 requests/s; and 80 of 100 pass both limits. With
// TTFT ≤ 150 ms only A passes (B's TTFT is 200 ms): 20 %; at 1 s, C's 700 ms
// TTFT passes too: 60 %.
func TestRun(t *testing.T) {
	var b bytes.Buffer
	if err := run(&b); err != nil {
		t.Fatal(err)
	}
	want := `A meets ttft=500ms,tpot=50ms (inclusive ≤): true
B meets ttft=500ms,tpot=50ms (inclusive ≤): true
C meets ttft=500ms,tpot=50ms (inclusive ≤): false
D meets ttft=500ms,tpot=50ms (inclusive ≤): false
E meets ttft=500ms,tpot=50ms (inclusive ≤): false
attainment 2/5 = 40%; goodput 2/10s = 0.2 requests/s
fail TTFT 10, fail TPOT 10, pass both 80 of 100
TTFT ≤ 150ms: attainment 20%
TTFT ≤ 500ms: attainment 40%
TTFT ≤ 1s: attainment 60%
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
