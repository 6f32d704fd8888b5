package bounded_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/bounded"
	"github.com/llmmetrics/llmmetrics/internal/budget"
	"github.com/llmmetrics/llmmetrics/internal/synth"
)

// run returns synth.Mixed's records with some the samples leave out or
// take apart (warm-up, answers whose text came at once, ok without a
// usage block, ok without chunk arrivals), then edges: every category and
// count state, preflight, one-token answers and client facts. (No
// record of a JSONL file is unfinished: only another tool's reader marks
// one so.)
func run(n int) []llmmetrics.Record {
	recs := synth.Mixed(n, 16)
	for i := 0; i < len(recs); i += 97 {
		r := &recs[i]
		if r.Status != llmmetrics.StatusOK || len(r.Chunks) < 2 {
			continue
		}
		switch i % 5 {
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
		case 4: // a count below the chunks
			r.CompletionTokens, r.ChunkTokens = 2, nil
		}
	}
	return append(recs, edges(recs[len(recs)-1].Sent)...)
}

// edges returns records of each kind Summarize counts apart, sent from t.
func edges(t time.Duration) []llmmetrics.Record {
	ms := time.Millisecond
	return []llmmetrics.Record{
		{ID: "pre", Preflight: true, Warmup: true, Sent: t, FirstText: ms, LastText: ms, CompletionTokens: 1},
		{ID: "can", Status: llmmetrics.StatusCancelled, Message: "stopped", Sent: t + ms},
		{ID: "zero", Sent: t + ms, FirstText: 2 * ms, LastText: 2 * ms},
		{ID: "one", Sent: t + 2*ms, FirstText: 3 * ms, LastText: 3 * ms, CompletionTokens: 1, PromptTokens: 7, Chunks: []time.Duration{3 * ms}},
		{ID: "zu", Sent: t + 2*ms, Chunks: []time.Duration{3 * ms, 4 * ms, 9 * ms}},
		{ID: "cli", Sent: t + 3*ms, FirstText: 3 * ms, LastText: 8 * ms, CompletionTokens: 4, Client: &llmmetrics.ClientSide{Wait: ms}},
		// Replies that came as one body, without usage and with a count.
		{ID: "body", Sent: t + 3*ms, Chunks: []time.Duration{6 * ms}, NoUsage: true, Client: &llmmetrics.ClientSide{OneBody: true}},
		{ID: "body2", Sent: t + 3*ms, Chunks: []time.Duration{7 * ms}, CompletionTokens: 1, Client: &llmmetrics.ClientSide{OneBody: true}},
		{Sent: t + 3*ms, FirstText: 5 * ms, LastText: 5 * ms, CompletionTokens: 3},
		// One chunk without usage: of any count (at once), or of one.
		{ID: "oc", Sent: t + 4*ms, Chunks: []time.Duration{5 * ms}, NoUsage: true, MaxTokens: 32},
		{ID: "oc1", Sent: t + 4*ms, Chunks: []time.Duration{6 * ms}, NoUsage: true, MaxTokens: 1},
	}
}

// write writes recs as JSONL to a file of the test's and returns its
// opener.
func write(t testing.TB, recs []llmmetrics.Record) bounded.Opener {
	t.Helper()
	var b bytes.Buffer
	if err := llmmetrics.WriteJSONL(&b, recs); err != nil {
		t.Fatal(err)
	}
	return writeBytes(t, b.Bytes())
}

// writeBytes writes b to a file of the test's and returns its opener.
func writeBytes(t testing.TB, b []byte) bounded.Opener {
	path := filepath.Join(t.TempDir(), "run")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return func() (io.ReadCloser, error) { return os.Open(path) }
}

// The summary of 10⁵ records and the edges read a pass at a time, in a
// budget small enough to need passes of refinement and of the ids or the
// default one, is Summarize's, by either method, with an SLO or without.
func TestSummarizeEqualsInMemory(t *testing.T) {
	recs := run(100_000)
	open := write(t, recs)
	ps := []llmmetrics.Percentile{llmmetrics.MustPercentile(0), llmmetrics.MustPercentile(50), llmmetrics.MustPercentile(90),
		llmmetrics.MustPercentile(99), llmmetrics.MustPercentile(99.9), llmmetrics.MustPercentile(100)}
	slo := &llmmetrics.SLO{TTFT: 150 * time.Millisecond, TPOT: 30 * time.Millisecond, E2E: 3 * time.Second}
	for _, m := range raceFewer([]llmmetrics.Method{llmmetrics.NearestRank, llmmetrics.Linear}) {
		for _, slo := range raceFewer([]*llmmetrics.SLO{slo, nil}) {
			opt := llmmetrics.Options{Method: m, Percentiles: ps, SLO: slo}
			want, err := llmmetrics.Summarize(recs, opt)
			if err != nil {
				t.Fatal(err)
			}
			if a := want.Requests; a.Warmup == 0 || a.Unstreamed == 0 || a.Uncounted.Total() == 0 || a.Preflight == 0 || want.TTFT.N >= want.E2E.N {
				t.Fatalf("the run lacks the records the samples leave out: %+v", a)
			}
			for _, budget := range raceFewer([]int{256 << 10, 0}) {
				got, st, err := bounded.Summarize(open, bounded.Options{Options: opt, Budget: budget})
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%v, slo %v, budget %d: %d passes, %d bytes held", m, slo != nil, budget, st.Passes, st.Held)
				if budget > 0 && (st.Held > budget || st.Passes < 4) {
					t.Errorf("held %d bytes of %d in %d passes", st.Held, budget, st.Passes)
				}
				same(t, got, want)
			}
		}
	}
}

// same fails unless got's JSON has every key of want's but those got
// says it did not compute, with their values.
func same(t *testing.T, got, want *llmmetrics.Summary) {
	t.Helper()
	g, w := object(t, got), object(t, want)
	notComputed := map[string]bool{}
	for k, v := range got.Absent {
		if v == bounded.NotComputed {
			notComputed[k] = true
		}
	}
	if len(notComputed) == 0 {
		t.Error("nothing is said to be not computed")
	}
	for k, wv := range w {
		if k == "absent" {
			continue
		}
		if notComputed[k] {
			if _, ok := g[k]; ok {
				t.Errorf("%s: computed though said absent", k)
			}
			continue
		}
		if !reflect.DeepEqual(g[k], wv) {
			t.Errorf("%s:\n got %v\nwant %v", k, g[k], wv)
		}
	}
	for k, v := range want.Absent {
		if sec, _, _ := strings.Cut(k, "."); !notComputed[sec] && got.Absent[k] != v {
			t.Errorf("absent %s: got %q, want %q", k, got.Absent[k], v)
		}
	}
	for k := range g {
		if _, ok := w[k]; !ok && k != "absent" && k != "notes" {
			t.Errorf("%s: not in Summarize's", k)
		}
	}
}

// object returns s's JSON as a map.
func object(t *testing.T, s *llmmetrics.Summary) map[string]any {
	t.Helper()
	b, err := s.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// An invalid record is an error naming it, a repeated id is refused
// whether the ids fit the budget or take passes of their own, and an
// empty file has no records.
func TestSummarizeRefuses(t *testing.T) {
	bad := []llmmetrics.Record{{ID: "a"}, {ID: "b", Sent: time.Second, FirstText: 2 * time.Second, LastText: time.Second, CompletionTokens: 3}}
	var re *llmmetrics.RecordError
	if _, _, err := bounded.Summarize(write(t, bad), bounded.Options{}); !errors.As(err, &re) || re.Index != 1 || re.Line != 2 || re.ID != "b" {
		t.Errorf("an invalid record: %v", err)
	}
	recs := synth.Mixed(20_000, 4)
	recs[15_000].ID = recs[7].ID
	open := write(t, recs)
	for _, budget := range []int{32 << 10, 0} {
		_, st, err := bounded.Summarize(open, bounded.Options{Budget: budget})
		if !errors.Is(err, llmmetrics.ErrDuplicateID) || !errors.As(err, &re) || re.Line != 15_001 || !strings.Contains(err.Error(), "also line 8") {
			t.Errorf("budget %d: a repeated id: %v", budget, err)
		}
		t.Logf("budget %d: %d passes", budget, st.Passes)
	}
	if _, _, err := bounded.Summarize(writeBytes(t, nil), bounded.Options{}); !errors.Is(err, llmmetrics.ErrNoRecords) {
		t.Errorf("no records: %v", err)
	}
	if _, _, err := bounded.Summarize(open, bounded.Options{Options: llmmetrics.Options{Stratify: &llmmetrics.StrataSpec{}}}); !errors.Is(err, bounded.ErrUnsupported) {
		t.Errorf("stratify: %v", err)
	}
}

// A run of failed records only has no distributions, and says why as
// Summarize does.
func TestSummarizeFailedOnly(t *testing.T) {
	failed := []llmmetrics.Record{{ID: "a", Status: llmmetrics.StatusError, Message: "boom"}}
	got, _, err := bounded.Summarize(write(t, failed), bounded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := llmmetrics.Summarize(failed, llmmetrics.Options{})
	same(t, got, want)
}

// The repository's sample run, with its header and end line, read in a
// small budget, gives the figures Run.Summarize gives for the file, its
// completeness and notes with them.
func TestSummarizeSampleRun(t *testing.T) {
	open := func() (io.ReadCloser, error) { return os.Open("../testdata/sample_run.jsonl") }
	for _, m := range []llmmetrics.Method{llmmetrics.NearestRank, llmmetrics.Linear} {
		f, _ := open()
		want, _, err := llmmetrics.ReadOptions{}.Summarize(f, llmmetrics.Options{Method: m})
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := bounded.Summarize(open, bounded.Options{Options: llmmetrics.Options{Method: m}, Budget: 16 << 10})
		if err != nil {
			t.Fatal(err)
		}
		same(t, got, want)
		if !reflect.DeepEqual(got.Completeness, want.Completeness) || !reflect.DeepEqual(got.Header, want.Header) || !reflect.DeepEqual(got.Notes, want.Notes) {
			t.Errorf("completeness %+v, want %+v", got.Completeness, want.Completeness)
		}
	}
}

// A run in CSV, read a batch at a time with the header row before each,
// gives the figures Run.Summarize gives for the file read in memory, and
// a record's line in the file when it is invalid.
func TestSummarizeCSV(t *testing.T) {
	var recs []llmmetrics.Record
	for _, r := range run(50_000) {
		if r.Status == llmmetrics.StatusOK && r.CountState() != llmmetrics.CountKnown {
			continue // a row cannot say its count is unusable
		}
		r.Warmup, r.Preflight = false, false // which CSV cannot mark
		if r.Status != llmmetrics.StatusOK {
			r.Message = "the server said,\n\"busy\""
		}
		recs = append(recs, r)
	}
	var b bytes.Buffer
	if err := llmmetrics.WriteCSV(&b, recs); err != nil {
		t.Fatal(err)
	}
	open := writeBytes(t, b.Bytes())
	opt := llmmetrics.Options{SLO: &llmmetrics.SLO{TTFT: 150 * time.Millisecond}}
	want, _, err := llmmetrics.ReadOptions{}.Summarize(bytes.NewReader(b.Bytes()), opt)
	if err != nil {
		t.Fatal(err)
	}
	for _, budget := range []int{256 << 10, 0} {
		got, st, err := bounded.Summarize(open, bounded.Options{Options: opt, Budget: budget})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("budget %d: %d passes", budget, st.Passes)
		same(t, got, want)
	}
	r := &recs[40_000]
	r.Status, r.Chunks, r.ChunkTokens, r.FirstText, r.LastText, r.CompletionTokens = llmmetrics.StatusOK, nil, nil, 2*time.Second, time.Second, 3
	var bad bytes.Buffer
	llmmetrics.WriteCSV(&bad, recs)
	_, _, err = bounded.Summarize(writeBytes(t, bad.Bytes()), bounded.Options{})
	var re *llmmetrics.RecordError
	_, _, inMemory := llmmetrics.ReadOptions{}.Summarize(bytes.NewReader(bad.Bytes()), opt)
	if !errors.As(err, &re) || re.Index != 40_000 || !strings.Contains(inMemory.Error(), fmt.Sprintf("line %d", re.Line)) {
		t.Errorf("an invalid record: %v; in memory: %v", err, inMemory)
	}
}

// A file of several batches with its run header and end line gives the
// summary Run.Summarize gives, the header with the end line's load facts,
// the completeness and the end line's notes with it; a header after the
// first line, or a record after the end line, is refused as in memory.
func TestSummarizeHeaderAndEnd(t *testing.T) {
	recs := synth.Mixed(20_000, 8)
	file := func(edit func(lines [][]byte) [][]byte) []byte {
		var b bytes.Buffer
		h := &llmmetrics.RunHeader{Tool: "test", Start: time.Unix(1e9, 0).UTC(), Ends: true, Load: map[string]string{"loop": "closed"}}
		h.WriteLine(&b)
		llmmetrics.WriteJSONL(&b, recs)
		e := &llmmetrics.RunEnd{State: "interrupted", By: "SIGINT", Written: len(recs), Load: map[string]string{"scrape_elapsed": "9s"}, Notes: []string{"stopped"}}
		e.WriteLine(&b)
		lines := bytes.SplitAfter(b.Bytes(), []byte("\n"))
		return bytes.Join(edit(lines), nil)
	}
	whole := file(func(l [][]byte) [][]byte { return l })
	want, _, err := llmmetrics.ReadOptions{}.Summarize(bytes.NewReader(whole), llmmetrics.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := bounded.Summarize(writeBytes(t, whole), bounded.Options{Budget: 256 << 10})
	if err != nil {
		t.Fatal(err)
	}
	same(t, got, want)
	if !reflect.DeepEqual(got.Completeness, want.Completeness) || !reflect.DeepEqual(got.Header, want.Header) || !reflect.DeepEqual(got.Notes, want.Notes) {
		t.Errorf("got %+v %+v %v\nwant %+v %+v %v", got.Completeness, got.Header, got.Notes, want.Completeness, want.Header, want.Notes)
	}
	for name, edit := range map[string]func([][]byte) [][]byte{
		"a header later": func(l [][]byte) [][]byte { return append(l[:15_000:15_000], append([][]byte{l[0]}, l[15_000:]...)...) },
		"after the end":  func(l [][]byte) [][]byte { return append(l, l[1]) },
		"a header at a batch's start": func(l [][]byte) [][]byte { // batches of 1 MiB
			k, n := 0, 0
			for ; n < 1<<20; k++ {
				n += len(l[k])
			}
			return append(l[:k:k], append([][]byte{l[0]}, l[k:]...)...)
		},
		"the end line at a batch's end": func(l [][]byte) [][]byte { // padded to end the batch
			k, n := 0, 0
			for ; n < 1<<20; k++ {
				n += len(l[k])
			}
			end := bytes.TrimSuffix(l[len(l)-2], []byte("\n"))
			end = append(append(end, bytes.Repeat([]byte(" "), len(l[k-1]))...), '\n')
			return append(l[:k-1:k-1], append([][]byte{end}, l[k-1:]...)...)
		},
	} {
		bad := file(edit)
		_, _, inMemory := llmmetrics.ReadOptions{}.Summarize(bytes.NewReader(bad), llmmetrics.Options{})
		_, _, err := bounded.Summarize(writeBytes(t, bad), bounded.Options{})
		t.Logf("%s: %v", name, err)
		if err == nil || inMemory == nil || !errors.Is(err, llmmetrics.ErrSyntax) {
			t.Errorf("%s: got %v; in memory %v", name, err, inMemory)
		}
	}
}

// raceFewer returns the first of xs under the race detector, which runs
// the passes ten times slower, and all of them otherwise.
func raceFewer[T any](xs []T) []T {
	if budget.Race {
		return xs[:1]
	}
	return xs
}

// A JSONL file whose records carry no sent_ns has no send times, read in
// batches as in memory; one whose records give them in one batch and not
// in another is refused, as the reader of the whole file refuses it: at
// the fewer side of the batch where both meet, or at the first record
// without when batches disagree.
func TestSummarizeNoSendTimes(t *testing.T) {
	var none, mixed bytes.Buffer
	for i := range 30_000 { // about 2 MiB: three batches
		line := fmt.Sprintf(`{"id":"r%d","first_text_ns":100,"last_text_ns":400,"completion_tokens":3}`+"\n", i)
		none.WriteString(line)
		if i >= 20_000 {
			line = fmt.Sprintf(`{"id":"r%d","sent_ns":%d,"first_text_ns":100,"last_text_ns":400,"completion_tokens":3}`+"\n", i, i)
		}
		mixed.WriteString(line)
	}
	got, _, err := bounded.Summarize(writeBytes(t, none.Bytes()), bounded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Throughput != nil || !strings.Contains(got.Absent["throughput"], "no send times") {
		t.Errorf("no send times: throughput %v, absent %q", got.Throughput, got.Absent["throughput"])
	}
	for _, lenient := range []bool{false, true} {
		_, _, err = bounded.Summarize(writeBytes(t, mixed.Bytes()), bounded.Options{Options: llmmetrics.Options{Lenient: lenient}})
		var re *llmmetrics.RecordError
		if !errors.Is(err, llmmetrics.ErrMixedSends) || !errors.As(err, &re) || re.Field != "sent_ns" {
			t.Errorf("lenient %v: send times in some batches: %v", lenient, err)
		}
		if lenient && (re == nil || re.Line != 1 || !strings.Contains(err.Error(), "gives its sent_ns")) {
			t.Errorf("lenient: the batches without send times and with them: %v", err)
		}
	}
}

// A CSV cut inside its last row reads TRUNCATED in batches too, as in
// memory.
func TestSummarizeCSVCut(t *testing.T) {
	in := "request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,sent_ms\na,10,3,100,400,0\nb,10,3,120,380,50\nc,10,3,90,500,100\nd,10,3"
	got, _, err := bounded.Summarize(writeBytes(t, []byte(in)), bounded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := llmmetrics.ReadOptions{}.Summarize(strings.NewReader(in), llmmetrics.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Completeness == nil || !reflect.DeepEqual(got.Completeness, want.Completeness) || got.Completeness.State != "truncated" {
		t.Errorf("completeness %+v, want %+v", got.Completeness, want.Completeness)
	}
}

// The edges of a CSV cut read in batches as in memory: a row cut inside a
// quoted field, on its first line or its second, or just after its last
// comma (sent_ms, a required column, left empty), is a cut; a short last
// row with a malformed whole field is that row's error. The second input
// has 50,000 rows of 24 bytes or more after the header, more than a batch
// (1 MiB), so that its cut is in the second batch, read with the header
// row before it: its line is 1 + 2 + 50,000 + 1.
func TestSummarizeCSVCutEdges(t *testing.T) {
	const head = "request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,sent_ms,status,message\na,10,3,100,400,0,ok,\nb,10,3,120,380,50,ok,\n"
	var big strings.Builder
	big.WriteString(head)
	for i := range 50_000 {
		fmt.Fprintf(&big, "r%d,10,3,100,400,%d,ok,\n", i, 100+i)
	}
	const quote = `c,10,5,100,200,0,error,"connection re` // 23 + 14 bytes
	for _, c := range []struct {
		in  string
		cut *llmmetrics.Cut // nil: an error
	}{
		{head + quote, &llmmetrics.Cut{Line: 4, Bytes: 37, Of: "row", After: 2}},
		{big.String() + quote, &llmmetrics.Cut{Line: 50_004, Bytes: 37, Of: "row", After: 50_002}},
		{head + "c,10,0,,,150,error,\"line one\nline tw", &llmmetrics.Cut{Line: 5, Bytes: 7, Of: "row", After: 2}},
		{head + "c,10,3,95,450,", &llmmetrics.Cut{Line: 4, Bytes: 14, Of: "row", After: 2}},
		{head + "c,abc,3", nil},
	} {
		got, _, err := bounded.Summarize(writeBytes(t, []byte(c.in)), bounded.Options{})
		if c.cut == nil {
			var re *llmmetrics.RecordError
			if !errors.As(err, &re) || !errors.Is(err, llmmetrics.ErrSyntax) || re.Line != 4 {
				t.Errorf("%.40q…: %v, want a syntax error on line 4", c.in[len(c.in)-40:], err)
			}
			continue
		}
		if err != nil {
			t.Errorf("…%q: %v", c.in[len(c.in)-40:], err)
			continue
		}
		if got.Completeness == nil || !reflect.DeepEqual(got.Completeness.Cut, c.cut) || got.Completeness.State != "truncated" {
			t.Errorf("…%q: completeness %+v, want truncated, cut %+v", c.in[len(c.in)-40:], got.Completeness, c.cut)
		}
	}
}
