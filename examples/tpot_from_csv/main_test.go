package main

import (
	"bytes"
	"os"
	"testing"
)

// r1 (450 − 150)/10 = 30 ms, r2 (130 − 90)/1 = 40 ms, r6 (1010 − 210)/32 =
// 25 ms; r3 has one token, r4 none, r5 failed. Mean (30 + 40 + 25)/3 =
// 31.666667 ms; the nearest-rank p50 of {25, 30, 40} is the 2nd, 30 ms, r1.
func TestRun(t *testing.T) {
	f, err := os.Open(exercise())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b bytes.Buffer
	if err := run(&b, f); err != nil {
		t.Fatal(err)
	}
	want := `r1: (450ms − 150ms)/(11 − 1) = 30ms
r2: (130ms − 90ms)/(2 − 1) = 40ms
r3: no TPOT (ok, n = 1)
r4: no TPOT (zero_token, n = 0)
r5: no TPOT (failed, n = 0)
r6: (1.01s − 210ms)/(33 − 1) = 25ms
6 rows: 4 ok (1 with one token, excluded from TPOT), 1 zero-token, 1 failed
TPOT over 3 requests: mean 31.666667ms, p50 30ms (request r1)
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
