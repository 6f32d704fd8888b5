package llmmetrics_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/internal/inflight"
)

// A closed loop's gaps between sends are set by the server's completions:
// their CV is read as such, never "bursty" or "Poisson-like". The sends at 0, 10, 20, 30 and 1,000 ms give gaps 10,
// 10, 10 and 970 ms: mean 250, deviation √((3·240² + 720²)/4) = 415.7,
// CV 1.66 > 1.2, "bursty" for an open loop.
func TestClosedLoopReading(t *testing.T) {
	for loop, want := range map[string]string{"closed": inflight.ClosedLoop, "open": "bursty"} {
		var b strings.Builder
		fmt.Fprintf(&b, `{"llmmetrics_run":{"tool":"t","start":"2026-12-02T10:00:00Z","load":{"loop":%q}}}`+"\n", loop)
		for i, sent := range []int{0, 10, 20, 30, 1000} {
			fmt.Fprintf(&b, `{"id":"r%d","sent_ns":%d,"chunk_arrivals_ns":[5000000,6000000],"completion_tokens":2}`+"\n", i, sent*1_000_000)
		}
		run, err := llmmetrics.ReadJSONL(strings.NewReader(b.String()))
		if err != nil {
			t.Fatal(err)
		}
		s, err := run.Summarize(llmmetrics.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Workload.Arrivals.Reading; got != want {
			t.Errorf("%s loop: reading %q, want %q", loop, got, want)
		}
	}
}
