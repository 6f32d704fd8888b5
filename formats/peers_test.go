package formats

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
)

// readReal reads one real file of ../shared/realdata, or skips.
func readReal(t *testing.T, name string) *File {
	t.Helper()
	path := filepath.Join(realdata, name)
	in, err := os.Open(path)
	if err != nil {
		t.Skipf("%s is absent (the shared real data): %v", path, err)
	}
	defer in.Close()
	f, err := Read(in, "")
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return f
}

const aiperfReal = "aiperf/ai-dynamo__aiperf__run1_profile_export.jsonl"

// AIPerf's output rate, from its real run: the dialect gives the figure
// AIPerf wrote in profile_export_aiperf.json, and reconcile says why
// llmmetrics' own differs. By hand from the file (an independent script):
// the 89 records without an error have output_sequence_length summing to
// 21624, and their requests and responses span 9317788951 ns, so AIPerf's
// rate is 21624 / 9.317788951 = 2320.7222 tokens/s. Three of them (240
// tokens in 241 chunks, 246 in 247, 246 in 247) have fewer tokens than
// chunks: llmmetrics leaves their 240 + 246 + 246 = 732 tokens out, which
// over the same window are 732 / 9.317788951 = 78.5594 tokens/s, leaving
// 20892 / 9.317788951 = 2242.1628.
func TestAIPerfRealOutputRate(t *testing.T) {
	f := readReal(t, aiperfReal)
	b, err := os.ReadFile(filepath.Join(realdata, strings.TrimSuffix(aiperfReal, ".jsonl")+"_aiperf.json"))
	if err != nil {
		t.Skipf("AIPerf's summary beside the records is absent: %v", err)
	}
	var summary struct {
		Records map[string]struct {
			Avg float64 `json:"avg"`
		} `json:"records"`
	}
	if err := json.Unmarshal(b, &summary); err != nil {
		t.Fatal(err)
	}
	stated := summary.Records["output_token_throughput"].Avg
	if digits(stated, 21624/9.317788951) < 12 {
		t.Fatalf("AIPerf's summary states %v tokens/s, not 21624 / 9.317788951 s", stated)
	}

	d, err := f.Dialect()
	if err != nil {
		t.Fatal(err)
	}
	got, ok := d.Lookup("output_token_throughput.avg")
	if !ok || digits(got, stated) < 12 {
		t.Errorf("dialect output_token_throughput.avg = %v (present %v), AIPerf states %v", got, ok, stated)
	}

	c, err := Compare(f, llmmetrics.Options{})
	if err != nil {
		t.Fatal(err)
	}
	th := c.Summary.Throughput
	if th == nil || th.OutputTokens != 20892 || c.Summary.Requests.Uncounted.BelowChunks != 3 {
		t.Fatalf("llmmetrics' throughput %+v, uncounted %+v: want 20892 tokens, 3 below the chunks", th, c.Summary.Requests.Uncounted)
	}
	want := "Tokens left out: llmmetrics' output rate leaves out the 3 ok records whose token count is below their chunks (732 tokens; see the note below), and AIPerf's output_token_throughput counts them: it is total_osl / benchmark_duration, every valid record's output_sequence_length. Over llmmetrics' window the 732 tokens are 78.5594 tokens/s: 20892 tokens give 2242.1628, and 21624 give 2320.7222."
	if !contains(c.Reasons, want) {
		t.Errorf("no reason explains the output rate row; want\n%s\nreasons:\n%s", want, strings.Join(c.Reasons, "\n"))
	}
	if !contains(c.Reasons, "Here the two are the same to the nanosecond.") {
		t.Errorf("the window reason does not say the windows agree:\n%s", strings.Join(c.Reasons, "\n"))
	}
}

// contains reports whether a sentence of ss is s or ends with s.
func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s || strings.HasSuffix(x, s) {
			return true
		}
	}
	return false
}

// GuideLLM's incomplete requests, from a real run whose request_totals are
// successful 586, errored 0, incomplete 23: GuideLLM cancelled the 23 at
// the benchmark's end, though their error reads "TimeoutError". They are
// unfinished, not timeouts: no request failed (error rate 0/609), and an
// SLO that every successful request meets is met by 586 of the 586 judged
// (before: 23 timeouts, error rate 23/609 = 3.8%, attainment 586/609 =
// 96.22%).
func TestGuideLLMRealIncomplete(t *testing.T) {
	f := readReal(t, "guidellm/rsevilla87__guidellm-results-parser__benchmarks.json")
	run, err := f.Records()
	if err != nil {
		t.Fatal(err)
	}
	// ttft ≤ 2 s and tpot ≤ 50 ms hold for every successful request: the
	// file's own maxima are 1043.9 ms and 10.6 ms.
	s, err := run.Summarize(llmmetrics.Options{SLO: &llmmetrics.SLO{TTFT: 2 * time.Second, TPOT: 50 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	a := s.Requests
	if a.Offered != 609 || a.OK != 586 || a.Unfinished != 23 || a.Failed != 0 || a.Timeouts != 0 || a.Cancelled != 0 {
		t.Errorf("accounting %+v: want 609 offered = 586 ok + 23 unfinished, 0 failed", a)
	}
	if g := s.Goodput; g == nil || g.Good != 586 || g.Offered != 586 || g.Attainment != 1 {
		t.Errorf("goodput %+v: want 586 good of 586 judged", g)
	}
	if w := s.Workload; w == nil || w.Arrivals == nil || w.Arrivals.Gaps != 608 {
		t.Errorf("arrivals %+v: want the 608 gaps between the 609 sends, unfinished ones included", w)
	}
	c, err := Compare(f, llmmetrics.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !contains(c.Reasons, "llmmetrics counts them apart, as unfinished at the run's end: in no latency or rate, not failed and not judged by an SLO.") {
		t.Errorf("no reason says how the incomplete requests are counted:\n%s", strings.Join(c.Reasons, "\n"))
	}
	for _, r := range c.Reasons {
		if strings.HasPrefix(r, "Failures:") {
			t.Errorf("a benchmark without errored requests has a reason about failures: %s", r)
		}
	}
}
