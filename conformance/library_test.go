package conformance

import (
	"strings"
	"testing"
	"time"
)

// libraryDisagrees lists the cases today's library does not pass, and
// why. Each is the library's error, not the case's: the specification
// (and issue 20) keep a request's TTFT and E2E when its token count is
// missing or contradicts its chunks, and set it aside only from TPOT and
// token rates, in a counted state. The test fails when one of them starts
// to agree, so that the entry is removed.
var libraryDisagrees = map[string]string{
	// Empty since issue 20: the three cases of requests without a usable
	// count (edge-chunks-no-usage, edge-usage-zero-with-text,
	// trap-count-below-chunks) now agree.
}

// The library agrees with every case, and gives every figure.
func TestLibraryAgrees(t *testing.T) {
	for _, r := range Run(Library) {
		if why, ok := libraryDisagrees[r.Case.ID]; ok {
			if r.Agrees() && len(r.Missing) == 0 {
				t.Errorf("%s now agrees: remove it from libraryDisagrees (%s)", r.Case.ID, why)
			} else {
				t.Logf("known disagreement, %s: %s", why, strings.SplitN(Explain(r), "\n", 2)[0])
			}
			continue
		}
		if !r.Agrees() {
			t.Errorf("%s", Explain(r))
		}
		for _, d := range r.Missing {
			t.Errorf("case %s: the library does not give %s", r.Case.ID, d.Figure)
		}
	}
}

// A case whose answers carry no usage has no output rate: the library's
// figure is absent, as the report leaves it, never the 0 it is held as.
func TestLibraryOutputRateAbsent(t *testing.T) {
	ms := time.Millisecond
	c := Case{ID: "no-usage", Options: Options{Method: "nearest-rank", Window: time.Second}, Requests: []Request{
		{ID: "a", Status: "ok", Events: []Event{{At: 100 * ms, Kind: KindText}, {At: 150 * ms, Kind: KindText}, {At: 160 * ms, Kind: "done"}}},
	}}
	f, err := Library(c)
	if err != nil {
		t.Fatal(err)
	}
	if v := f["output_tokens_per_s"]; v != Absent {
		t.Errorf("output_tokens_per_s = %v, want absent", v)
	}
	if v := f["requests_per_s"]; v != Num(1) {
		t.Errorf("requests_per_s = %v, want 1 (one request over the declared second)", v)
	}
}
