package bounded_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/bounded"
	"github.com/llmmetrics/llmmetrics/internal/budget"
	"github.com/llmmetrics/llmmetrics/internal/synth"
)

// run returns synth.Mixed's records with some the samples leave out or
// take apart: warm-up, answers whose text came at once (E2E only), ok
// without a usage block, and ok without chunk arrivals (no gaps).
func run(n int) []llmmetrics.Record {
	recs := synth.Mixed(n, 32)
	for i := 0; i < len(recs); i += 97 {
		r := &recs[i]
		if r.Status != llmmetrics.StatusOK || len(r.Chunks) < 2 {
			continue
		}
		switch i % 4 {
		case 0:
			r.Warmup = true
		case 1: // the whole text in one chunk
			r.Chunks = r.Chunks[len(r.Chunks)-1:]
			r.ChunkTokens = nil
		case 2:
			r.NoUsage, r.CompletionTokens, r.ChunkTokens = true, 0, nil
		case 3: // times without chunk arrivals
			r.FirstText, r.LastText = r.Chunks[0], r.Chunks[len(r.Chunks)-1]
			r.Chunks, r.ChunkTokens = nil, nil
		}
	}
	return recs
}

// write writes recs as JSONL to a file of the test's and returns its
// opener.
func write(t *testing.T, recs []llmmetrics.Record) bounded.Opener {
	t.Helper()
	var b bytes.Buffer
	if err := llmmetrics.WriteJSONL(&b, recs); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "run.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return func() (io.ReadCloser, error) { return os.Open(path) }
}

// The distributions of 10⁵ records read a pass at a time, in a budget
// small enough to need passes of refinement or the default one, are
// Summarize's, by either method.
func TestReadJSONLSummarize(t *testing.T) {
	recs := run(100_000)
	open := write(t, recs)
	ps := []llmmetrics.Percentile{llmmetrics.MustPercentile(0), llmmetrics.MustPercentile(50), llmmetrics.MustPercentile(90),
		llmmetrics.MustPercentile(99), llmmetrics.MustPercentile(99.9), llmmetrics.MustPercentile(100)}
	for _, m := range []llmmetrics.Method{llmmetrics.NearestRank, llmmetrics.Linear} {
		want, err := llmmetrics.Summarize(recs, llmmetrics.Options{Method: m, Percentiles: ps})
		if err != nil {
			t.Fatal(err)
		}
		if a := want.Requests; a.Warmup == 0 || a.Unstreamed == 0 || a.Failed == 0 || want.TTFT.N >= want.E2E.N {
			t.Fatalf("the run lacks the records the samples leave out: %+v", a)
		}
		for _, budget := range []int{64 << 10, 0} {
			got, err := bounded.ReadJSONL(open, bounded.Options{Method: m, Percentiles: ps, Budget: budget})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%v, budget %d: %d passes, %d bytes held", m, budget, got.Passes, got.Held)
			if budget > 0 && got.Held > budget {
				t.Errorf("held %d bytes of %d", got.Held, budget)
			}
			same(t, "ttft", got.TTFT, want.TTFT)
			same(t, "e2e", got.E2E, want.E2E)
			same(t, "itl", got.ITL, &want.ITL.Distribution)
		}
	}
}

// same fails unless got has want's figures (the ids of the requests at
// the percentiles aside).
func same(t *testing.T, name string, got, want *llmmetrics.Distribution) {
	t.Helper()
	if got == nil || want == nil {
		t.Fatalf("%s: got %v, want %v", name, got, want)
	}
	if got.N != want.N || got.Mean != want.Mean || got.Std != want.Std || got.Min != want.Min || got.Max != want.Max || got.Method != want.Method {
		t.Errorf("%s: got %+v\nwant %+v", name, *got, *want)
		return
	}
	for i, p := range want.Points {
		if got.Points[i].P != p.P || got.Points[i].Value != p.Value {
			t.Errorf("%s %s: got %v, want %v", name, p.P.Key(), got.Points[i].Value, p.Value)
		}
	}
}

// An invalid record is an error, and a run of no ok record has no
// distributions.
func TestReadJSONLEdges(t *testing.T) {
	bad := []llmmetrics.Record{{ID: "a", Sent: time.Second, FirstText: 2 * time.Second, LastText: time.Second, CompletionTokens: 3}}
	if _, err := bounded.ReadJSONL(write(t, bad), bounded.Options{}); err == nil {
		t.Error("an invalid record: no error")
	}
	failed := []llmmetrics.Record{{ID: "a", Status: llmmetrics.StatusError, Message: "boom"}}
	l, err := bounded.ReadJSONL(write(t, failed), bounded.Options{})
	if err != nil || l.TTFT != nil || l.E2E != nil || l.ITL != nil {
		t.Errorf("failed only: %+v, %v", l, err)
	}
}

// Reading holds a batch of records and the selection's budget, not the
// run: the peak stays within the budget (1 MiB) and 15 MiB for a batch of
// lines (1 MiB) parsed, whatever the run's size; here that is below a
// third of what Summarize holds for the run read in memory. (The peak
// seen is 5.8 MB or 14 MB from run to run: the parser's arenas of two
// batches, mapped apart from the heap, are sometimes held at once.)
func TestReadJSONLBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 10⁵ records several times")
	}
	recs := run(100_000)
	open := write(t, recs)
	var err error
	bounded := budget.Measure(func() { _, err = bounded.ReadJSONL(open, bounded.Options{Budget: 1 << 20}) })
	if err != nil {
		t.Fatal(err)
	}
	inMemory := budget.Measure(func() {
		f, _ := open()
		defer f.Close()
		_, _, err = llmmetrics.ReadOptions{}.Summarize(f, llmmetrics.Options{})
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("bounded: %v; in memory: %v", bounded, inMemory)
	if bounded.Peak > 16<<20 || bounded.Peak > inMemory.Peak/3 {
		t.Errorf("bounded peak %d bytes, in memory %d", bounded.Peak, inMemory.Peak)
	}
}

// The repository's sample run, with its header line, read in a small
// budget, gives the figures Summarize gives for the file.
func TestReadJSONLSampleRun(t *testing.T) {
	open := func() (io.ReadCloser, error) { return os.Open("../testdata/sample_run.jsonl") }
	f, _ := open()
	defer f.Close()
	want, _, err := llmmetrics.ReadOptions{}.Summarize(f, llmmetrics.Options{Method: llmmetrics.Linear})
	if err != nil {
		t.Fatal(err)
	}
	got, err := bounded.ReadJSONL(open, bounded.Options{Method: llmmetrics.Linear, Budget: 8 << 10})
	if err != nil {
		t.Fatal(err)
	}
	same(t, "ttft", got.TTFT, want.TTFT)
	same(t, "e2e", got.E2E, want.E2E)
	same(t, "itl", got.ITL, &want.ITL.Distribution)
}
