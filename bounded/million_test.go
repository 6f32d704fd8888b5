package bounded_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/bounded"
	"github.com/llmmetrics/llmmetrics/internal/budget"
	"github.com/llmmetrics/llmmetrics/internal/synth"
)

// A stream makes a run of records one at a time, from a fixed seed, and
// reads as its JSONL, so that a run of any size is read in passes without
// a file: each Opener call starts it again and gives the same lines. Its
// records are as synth.Mixed makes them (about 2% failed, 1% ok without a
// token, the rest ok with k chunks), with run's edits (warm-up, answers
// whose text came at once, ok without a usage block or without chunk
// arrivals, a count below the chunks), then the edges.
type stream struct {
	n, k, i int
	// dupAt, when not 0, is the record whose id is dupOf's.
	dupAt, dupOf int
	mix          *synth.Mixer
	buf          bytes.Buffer
	batch        []llmmetrics.Record
	chunks       []time.Duration
}

// newStream returns a stream of n records of k chunks and the edges.
func newStream(n, k int) *stream {
	return &stream{n: n, k: k, mix: synth.NewMixer()}
}

// opener returns an Opener of a new stream of n records of k chunks each
// time it is called.
func opener(n, k int) bounded.Opener {
	return func() (io.ReadCloser, error) { return io.NopCloser(newStream(n, k)), nil }
}

// records returns the n records of k chunks and the edges a stream reads
// as.
func records(n, k int) []llmmetrics.Record {
	s := newStream(n, k)
	recs := make([]llmmetrics.Record, 0, n+len(edges(0)))
	for s.i < s.n {
		recs = append(recs, s.next())
	}
	return append(recs, edges(s.mix.Sent())...)
}

// Read reads the stream's JSONL, written 256 records at a time.
func (s *stream) Read(p []byte) (int, error) {
	for s.buf.Len() == 0 {
		if s.i == s.n+1 {
			return 0, io.EOF
		}
		s.batch = s.batch[:0]
		for s.i < s.n && len(s.batch) < 256 {
			s.batch = append(s.batch, s.next())
		}
		if s.i == s.n && len(s.batch) < 256 {
			s.batch, s.i = append(s.batch, edges(s.mix.Sent())...), s.n+1
		}
		if err := llmmetrics.WriteJSONL(&s.buf, s.batch); err != nil {
			return 0, err
		}
	}
	return s.buf.Read(p)
}

// next returns the stream's next record, its chunk arrivals in a backing
// array of its own.
func (s *stream) next() llmmetrics.Record {
	i := s.i
	s.i++
	if len(s.chunks) < s.k {
		s.chunks = make([]time.Duration, 4096*s.k)
	}
	r := s.mix.Next(i, s.chunks[:s.k:s.k])
	if len(r.Chunks) > 0 {
		s.chunks = s.chunks[s.k:]
		if i%97 == 0 {
			edit(&r, i/97)
		}
	}
	if i == s.dupAt && i > 0 {
		r.ID = fmt.Sprint("r", s.dupOf)
	}
	return r
}

// edit makes an ok record of chunk arrivals one the samples leave out or
// take apart, by kind (run's edits).
func edit(r *llmmetrics.Record, kind int) {
	switch kind % 5 {
	case 0:
		r.Warmup = true
	case 1: // the whole text in one chunk
		r.Chunks = r.Chunks[len(r.Chunks)-1:]
	case 2:
		r.NoUsage, r.CompletionTokens = true, 0
	case 3: // times without chunk arrivals
		r.FirstText, r.LastText = r.Chunks[0], r.Chunks[len(r.Chunks)-1]
		r.Chunks = nil
	case 4: // a count below the chunks
		r.CompletionTokens = 2
	}
}

// The stream reads as the JSONL of its records.
func TestStream(t *testing.T) {
	var want bytes.Buffer
	if err := llmmetrics.WriteJSONL(&want, records(1000, 3)); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(newStream(1000, 3))
	if err != nil || !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("the stream reads %d bytes (%v), its records' JSONL is %d", len(got), err, want.Len())
	}
}

// The summary of 10⁶ records of four chunks (and the edges), made as they
// are read (no file), holds its budget of 8 MiB and a batch of records
// parsed and the stream's own buffers (about 16 MiB), not the run, on the
// heap as runtime metrics see it (budget.Measure), and its figures are
// Summarize's in memory (which holds the records), by nearest rank with
// an SLO; by linear interpolation in the default budget too. (About 25 s
// on two cores: 10 passes of 157 MB of JSONL, made and parsed.)
func TestSummarizeBudget(t *testing.T) {
	switch {
	case testing.Short():
		t.Skip("-short: reads 10⁶ records made on the fly 10 times")
	case budget.Race:
		t.Skip("the race detector: 10⁶ records read 10 times take ten times as long, and budgets hold without it")
	}
	const n, k = 1_000_000, 4
	slo := &llmmetrics.SLO{TTFT: 150 * time.Millisecond, TPOT: 30 * time.Millisecond, E2E: 3 * time.Second}
	opts := []llmmetrics.Options{{Method: llmmetrics.NearestRank, SLO: slo}, {Method: llmmetrics.Linear}}
	wants := inMemory(t, records(n, k), opts)
	for i, opt := range opts {
		b := bounded.Options{Options: opt}
		if i == 0 {
			b.Budget = 8 << 20
		}
		var got *llmmetrics.Summary
		var st bounded.Stats
		var err error
		cost := budget.Measure(func() { got, st, err = bounded.Summarize(opener(n, k), b) })
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%v, budget %d: %v; %d passes, %d bytes held", opt.Method, b.Budget, cost, st.Passes, st.Held)
		if i == 0 && (cost.Peak > 8<<20+16<<20 || st.Held > 8<<20 || st.Passes < 4) {
			t.Errorf("peak %d bytes, %d held, in %d passes", cost.Peak, st.Held, st.Passes)
		}
		same(t, got, wants[i])
	}
}

// inMemory returns Summarize's summaries of recs with each of opts,
// checking that recs have the records the samples leave out, and lets
// recs go.
func inMemory(t *testing.T, recs []llmmetrics.Record, opts []llmmetrics.Options) []*llmmetrics.Summary {
	t.Helper()
	var out []*llmmetrics.Summary
	for _, opt := range opts {
		want, err := llmmetrics.Summarize(recs, opt)
		if err != nil {
			t.Fatal(err)
		}
		if a := want.Requests; a.Warmup == 0 || a.Unstreamed == 0 || a.Uncounted.Total() == 0 || a.Preflight == 0 || a.Failed == 0 || want.TTFT.N >= want.E2E.N {
			t.Fatalf("the run lacks the records the samples leave out: %+v", a)
		}
		out = append(out, want)
	}
	return out
}

// Shards of 10⁶ records in all, made as they are read, the last of which
// repeats one of its ids late in the run, are refused naming the id and
// where it is, in a budget of 12 MiB, whose 3 MiB of id hashes take
// three passes of their own (8 MB of hashes). (Ids of different shards
// never repeat: they are prefixed with their file's position.)
func TestSummarizeMergedMillionRefuses(t *testing.T) {
	switch {
	case testing.Short():
		t.Skip("-short: reads 10⁶ records made on the fly a few times")
	case budget.Race:
		t.Skip("the race detector: 10⁶ records read a few times take ten times as long")
	}
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var opens []bounded.Opener
	for i := range 4 {
		h := &llmmetrics.RunHeader{Tool: "test", Start: start.Add(time.Duration(i) * time.Second)}
		opens = append(opens, shard(h, 250_000, i == 3))
	}
	_, st, err := bounded.SummarizeMerged(opens, bounded.Options{Budget: 12 << 20}, nil)
	var re *llmmetrics.RecordError
	// The fourth file's records come after three files of 250,000 records
	// and the edges each; its lines after its header.
	if !errors.Is(err, llmmetrics.ErrDuplicateID) || !errors.As(err, &re) || re.ID != "4/r7" || re.Index != 3*(250_000+len(edges(0)))+249_990 ||
		re.Line != 249_992 || !strings.Contains(err.Error(), "also line 9") {
		t.Errorf("a repeated id: %v", err)
	}
	t.Logf("%d passes: %v", st.Passes, err)
}

// shard returns an Opener of a run's header and a stream of n records of
// two chunks; with dup, its tenth record from the end has the id of its
// eighth ("r7").
func shard(h *llmmetrics.RunHeader, n int, dup bool) bounded.Opener {
	var head bytes.Buffer
	h.WriteLine(&head)
	return func() (io.ReadCloser, error) {
		s := newStream(n, 2)
		if dup {
			s.dupAt, s.dupOf = n-10, 7
		}
		return io.NopCloser(io.MultiReader(bytes.NewReader(head.Bytes()), s)), nil
	}
}
