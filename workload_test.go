package llmmetrics

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics/internal/inflight"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// A workload worked by hand. Sends at 0, 1, 2 and 3 s; three ok requests
// in flight over [0, 4), [1, 3) and [2, 6) s; the fourth failed.
func TestWorkloadOf(t *testing.T) {
	s := time.Second
	recs := []Record{
		{ID: "a", Sent: 0, FirstText: s, LastText: 4 * s, CompletionTokens: 10, MaxTokens: 10, PromptTokens: 100},
		{ID: "b", Sent: s, FirstText: s / 2, LastText: 2 * s, CompletionTokens: 5, MaxTokens: 10, PromptTokens: 200},
		{ID: "c", Sent: 2 * s, FirstText: s, LastText: 4 * s, CompletionTokens: 10},
		{ID: "d", Sent: 3 * s, Status: StatusError, Message: "boom"},
		{ID: "w", Sent: -5 * s, FirstText: s, LastText: 2 * s, CompletionTokens: 3, Warmup: true}, // left out
	}
	w, err := workloadOf(recs)
	require.NoError(t, err)
	// Prompts 100 and 200: nearest-rank p50 is rank ⌈0.5·2⌉ = 1 (100), p95
	// rank ⌈1.9⌉ = 2 (200). Eight bins of ⌈(201 − 100)/8⌉ = 13 tokens from
	// 100: 100 falls in the first, 200 in [191, 204), the last.
	require.NotNil(t, w.Prompt)
	assert.Equal(t, 2, w.Prompt.N)
	assert.Equal(t, [3]int{100, 200, 200}, [3]int{w.Prompt.P50, w.Prompt.P95, w.Prompt.Max})
	require.Len(t, w.Prompt.Histogram, 8)
	assert.Equal(t, Bin{Lo: 100, Hi: 113, Count: 1}, w.Prompt.Histogram[0])
	assert.Equal(t, Bin{Lo: 191, Hi: 204, Count: 1}, w.Prompt.Histogram[7])
	// Outputs 5, 10, 10: p50 rank 2 (10), p95 rank 3 (10).
	assert.Equal(t, [4]int{3, 10, 10, 10}, [4]int{w.Output.N, w.Output.P50, w.Output.P95, w.Output.Max})
	// Gaps 1, 1, 1 s: mean 1 s, CV 0, paced.
	assert.Equal(t, Arrivals{Gaps: 3, Mean: s, CV: 0, Reading: "paced"}, *w.Arrivals)
	// In flight: 1 over [0,1), 2 over [1,2), 3 over [2,3), 2 over [3,4),
	// 1 over [4,6): area 1+2+3+2+2 = 10 over 6 s, mean 5/3; 3 s at 1, so
	// the time-weighted median is 1; at most 3.
	c := w.Concurrency
	assert.Equal(t, 6*s, c.Span)
	assert.InDelta(t, 10.0/6, c.Mean, 1e-12)
	assert.Equal(t, 1, c.P50)
	assert.Equal(t, 3, c.Max)
	// a and b say max_tokens 10; b stopped at 5.
	assert.Equal(t, EarlyStop{Known: 2, Early: 1, Rate: 0.5}, *w.EarlyStop)

	// The same through Summarize, and unchanged by a shift of every send.
	sum, err := Summarize(recs, Options{})
	require.NoError(t, err)
	assert.Equal(t, w, sum.Workload)
	shifted := make([]Record, len(recs))
	for i, r := range recs {
		r.Sent += time.Hour
		shifted[i] = r
	}
	w2, err := workloadOf(shifted)
	require.NoError(t, err)
	assert.Equal(t, w, w2)
}

func TestWorkloadEdges(t *testing.T) {
	_, err := workloadOf(nil)
	assert.ErrorIs(t, err, ErrNoRecords)

	// One request: no arrival process, a concurrency of 1.
	one := []Record{{ID: "a", Sent: 0, FirstText: time.Second, LastText: 2 * time.Second, CompletionTokens: 2}}
	s, err := Summarize(one, Options{})
	require.NoError(t, err)
	assert.Nil(t, s.Workload.Arrivals)
	assert.Contains(t, s.Absent["workload.arrivals"], "fewer than three")
	assert.Equal(t, Concurrency{Span: 2 * time.Second, Mean: 1, P50: 1, Max: 1}, *s.Workload.Concurrency)
	assert.Nil(t, s.Workload.EarlyStop)
	assert.Nil(t, s.Workload.Prompt)

	// Sends at one instant: the gaps are all 0.
	same := []Record{
		{ID: "a", FirstText: time.Second, LastText: time.Second, CompletionTokens: 1},
		{ID: "b", FirstText: time.Second, LastText: time.Second, CompletionTokens: 1},
		{ID: "c", FirstText: time.Second, LastText: time.Second, CompletionTokens: 1},
	}
	w, err := workloadOf(same)
	require.NoError(t, err)
	assert.Equal(t, "all at once", w.Arrivals.Reading)
	// Back to back: one ends as the next begins, never two in flight.
	chain := []Record{
		{ID: "a", Sent: 0, FirstText: time.Second, LastText: time.Second, CompletionTokens: 1},
		{ID: "b", Sent: time.Second, FirstText: time.Second, LastText: time.Second, CompletionTokens: 1},
	}
	w, err = workloadOf(chain)
	require.NoError(t, err)
	assert.Equal(t, 1, w.Concurrency.Max)
	assert.InDelta(t, 1.0, w.Concurrency.Mean, 1e-12)
}

// A warm-up cut never loses a record: whatever the spec, every record
// offered is counted once, in the same offered total, and the warm-up
// count only grows.
func TestWarmupCutLosesNothing(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		recs := genRecords(t, false)
		before, err := Summarize(recs, Options{Lenient: true})
		if err != nil {
			t.Skip(err)
		}
		specs := []WarmupSpec{
			{Requests: rapid.IntRange(1, len(recs)+2).Draw(t, "n")},
			{Duration: time.Duration(rapid.Int64Range(1, int64(time.Minute)).Draw(t, "d"))},
			{Rule: &WarmupRule{Window: rapid.IntRange(1, 5).Draw(t, "window"), Tolerance: 0.5, Windows: 1}},
		}
		w := specs[rapid.IntRange(0, 2).Draw(t, "spec")]
		after, err := Summarize(recs, Options{Lenient: true, Warmup: &w})
		if err != nil {
			t.Fatal(err)
		}
		a, b := after.Requests, before.Requests
		if a.Offered != b.Offered || a.Offered != a.OK+a.ZeroToken+a.Failed+a.Rejected+a.Warmup {
			t.Fatalf("accounting: before %+v after %+v", b, a)
		}
		if a.Warmup < b.Warmup || a.Rejected != b.Rejected {
			t.Fatalf("warm-up %d → %d, rejected %d → %d", b.Warmup, a.Warmup, b.Rejected, a.Rejected)
		}
	})
}

// Strata worked by hand: n = 10, 1, 20, 70 and 300 at bounds 16, 64, 256.
func TestStratify(t *testing.T) {
	ms := time.Millisecond
	rec := func(id string, n int, ttft time.Duration) Record {
		return Record{ID: id, FirstText: ttft, LastText: ttft + time.Duration(n)*ms, CompletionTokens: n, PromptTokens: 100 * n}
	}
	recs := []Record{rec("a", 10, 100*ms), rec("b", 1, 50*ms), rec("c", 20, 70*ms), rec("d", 70, 80*ms), rec("e", 300, 90*ms),
		{ID: "f", Status: StatusTimeout}, {ID: "w", Warmup: true, FirstText: ms, LastText: ms, CompletionTokens: 1}}
	st, err := stratifyRecords(recs, StrataSpec{By: "output", Bounds: []int{16, 64, 256}}, Options{})
	require.NoError(t, err)
	assert.Equal(t, 1, st.Unstratified, "the timeout; the warm-up is not measured")
	require.Len(t, st.Strata, 4)
	var got []int
	for _, s := range st.Strata {
		got = append(got, s.Requests)
	}
	assert.Equal(t, []int{2, 1, 1, 1}, got)
	assert.Equal(t, "n ≤ 16", st.Strata[0].String())
	assert.Equal(t, "16 < n ≤ 64", st.Strata[1].String())
	assert.Equal(t, "n > 256", st.Strata[3].String())
	// The first stratum's TTFTs are 50 and 100 ms: nearest-rank p50 is
	// rank 1, 50 ms (request b).
	p50, _ := st.Strata[0].Summary.TTFT.At(MustPercentile(50))
	assert.Equal(t, 50*ms, p50)

	// By prompt length (100·n), and an empty stratum.
	st, err = stratifyRecords(recs, StrataSpec{By: "prompt", Bounds: []int{500, 1000, 1500}}, Options{})
	require.NoError(t, err)
	got = got[:0]
	for _, s := range st.Strata {
		got = append(got, s.Requests)
	}
	assert.Equal(t, []int{1, 1, 0, 3}, got) // 100 | 1000 | — | 2000, 7000, 30000
	assert.Nil(t, st.Strata[2].Summary)

	// Through Summarize.
	s, err := Summarize(recs, Options{Stratify: &StrataSpec{By: "output", Bounds: []int{16}}})
	require.NoError(t, err)
	require.NotNil(t, s.Strata)
	assert.Equal(t, 2, s.Strata.Strata[0].Requests)

	for _, bad := range []string{"latency=1,2", "output=64,16", "output=x", "output"} {
		_, err := parseStrata(bad)
		assert.ErrorIs(t, err, ErrInvalidOption, bad)
	}
	_, err = Summarize(recs, Options{Stratify: &StrataSpec{By: "size"}})
	assert.ErrorIs(t, err, ErrInvalidOption)
}

// The workload does not depend on the order of the records: sends out of
// order are sorted before their gaps are taken.
func TestWorkloadAnyOrder(t *testing.T) {
	recs := mixedRun(3000)
	for i := range recs {
		recs[i].ID = itoa(i) // no repeats, whose first depends on the order
	}
	want, err := workloadOf(recs)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.IsSortedFunc(recs, func(a, b Record) int { return int(a.Sent - b.Sent) }) {
		t.Fatal("mixedRun's sends are out of order; the test wants them in order first")
	}
	rng := rand.New(rand.NewPCG(4, 4))
	shuffled := slices.Clone(recs)
	rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	got, err := workloadOf(shuffled)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("shuffled: %+v\nin order: %+v", got, want)
	}
}

// A sweep agrees with counting the requests in flight between each two
// instants at which some request starts or ends, ends before starts at
// one instant, on runs with many ties; with no request of any length, the
// requests in flight are absent.
func TestConcurrencyByInstants(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 40).Draw(t, "n")
		starts, ends := make([]time.Duration, n), make([]time.Duration, n)
		for i := range starts {
			starts[i] = time.Duration(rapid.IntRange(0, 20).Draw(t, "start"))
			ends[i] = starts[i] + time.Duration(rapid.IntRange(0, 10).Draw(t, "length"))
		}
		var instants []time.Duration
		instants = append(append(instants, starts...), ends...)
		slices.Sort(instants)
		instants = slices.Compact(instants)
		want := Concurrency{Span: instants[len(instants)-1] - instants[0]}
		var timeAt []time.Duration
		var area float64
		for k, at := range instants {
			in := 0 // in flight just after at: begun by then, not ended by then
			for i := range starts {
				if starts[i] <= at && ends[i] > at {
					in++
				}
			}
			want.Max = max(want.Max, in)
			if k+1 < len(instants) {
				dt := instants[k+1] - at
				for len(timeAt) <= in {
					timeAt = append(timeAt, 0)
				}
				timeAt[in] += dt
				area += float64(in) * float64(dt)
			}
		}
		got := inFlight(inflight.Sweep(slices.Clone(starts), slices.Clone(ends)))
		if want.Span == 0 || want.Max == 0 {
			if got != nil {
				t.Fatalf("no span, or no request of any length: got %+v", got)
			}
			return
		}
		want.Mean = area / float64(want.Span)
		var cum time.Duration
		for k, d := range timeAt {
			if cum += d; 2*cum >= want.Span {
				want.P50 = k
				break
			}
		}
		if got == nil || *got != want {
			t.Fatalf("starts %v ends %v: got %+v, want %+v", starts, ends, got, want)
		}
	})
}

// A warm-up count given to records some of which are marked already says
// that it counts after them, with the right number of each kind.
func TestWarmupCutAfterMarked(t *testing.T) {
	recs := []Record{
		{ID: "p1", Sent: 0, Warmup: true, Preflight: true},
		{ID: "p2", Sent: 1, Warmup: true, Preflight: true},
		{ID: "w1", Sent: 2, Warmup: true},
		{ID: "w2", Sent: 3, Warmup: true},
		{ID: "a", Sent: 4}, {ID: "b", Sent: 5}, {ID: "c", Sent: 6},
	}
	for _, c := range []struct {
		recs []Record
		want string
	}{
		{recs, "the first 1 request in send order, after the 2 warm-up and 2 preflight requests the input marks"},
		{recs[2:], "the first 1 request in send order, after the 2 requests the input marks warm-up"},
		{append(recs[:2:2], recs[4:]...), "the first 1 request in send order, after the 2 requests the input marks preflight"},
		{recs[4:], "the first 1 request in send order"},
	} {
		cut, err := WarmupSpec{Requests: 1}.Cut(c.recs)
		if err != nil {
			t.Fatal(err)
		}
		if cut.Reason != c.want {
			t.Errorf("reason %q, want %q", cut.Reason, c.want)
		}
	}
}

// Sends whose every gap is 0 have no CV (a deviation over a mean of 0):
// it is absent with its reason, left out of JSON, and the text says the
// sends came all at once, where it once printed "CV 0.00".
func TestArrivalsAllAtOnce(t *testing.T) {
	recs := []Record{
		{ID: "a", Sent: time.Second, FirstText: 100 * time.Millisecond, LastText: 200 * time.Millisecond, CompletionTokens: 3},
		{ID: "b", Sent: time.Second, FirstText: 110 * time.Millisecond, LastText: 220 * time.Millisecond, CompletionTokens: 3},
		{ID: "c", Sent: time.Second, FirstText: 120 * time.Millisecond, LastText: 240 * time.Millisecond, CompletionTokens: 3},
	}
	s, err := Summarize(recs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a := s.Workload.Arrivals; a == nil || a.Gaps != 2 || a.Reading != "all at once" {
		t.Fatalf("arrivals %+v; want 2 gaps, all at once", a)
	}
	if why := s.Absent["workload.arrivals.cv"]; !strings.Contains(why, "every gap between sends is 0") {
		t.Errorf("the CV's absence says %q", why)
	}
	out, _ := json.Marshal(s)
	if !strings.Contains(string(out), `"arrivals":{"gaps":2,"mean_ms":0,"reading":"all at once"}`) {
		t.Errorf("JSON arrivals: %s", out)
	}
	var b bytes.Buffer
	s.WriteTable(&b)
	if !strings.Contains(b.String(), "arrivals: 2 gaps between sends, every one 0: all at once\n") || strings.Contains(b.String(), "CV 0.00") {
		t.Errorf("text:\n%s", b.String())
	}
}

// The ITL line accounts for every ok request: 3 pooled (two of three
// chunks, and one of a single token in a single chunk, one chunk per
// token), 1 without chunk arrivals, and 1 unstreamed answer of 5 tokens
// in one chunk, which adds no gap and has no basis: 5 ok.
func TestITLLineCountsEveryRequest(t *testing.T) {
	ms := time.Millisecond
	recs := []Record{
		{ID: "a", Chunks: []time.Duration{10 * ms, 20 * ms, 30 * ms}, CompletionTokens: 3},
		{ID: "b", Chunks: []time.Duration{12 * ms, 22 * ms, 35 * ms}, CompletionTokens: 3},
		{ID: "c", FirstText: 10 * ms, LastText: 40 * ms, CompletionTokens: 4},
		{ID: "d", Chunks: []time.Duration{50 * ms}, CompletionTokens: 5},
		{ID: "e", Chunks: []time.Duration{15 * ms}, CompletionTokens: 1},
	}
	s, err := Summarize(recs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	s.WriteTable(&b)
	want := "ITL: gap-weighted, pooled over 3 requests with chunk arrivals: 3 had one chunk per token, 0 did not; 1 without chunk arrivals; 1 not streamed (one chunk, no gap)\n"
	if !strings.Contains(b.String(), want) {
		t.Errorf("want %q in:\n%s", want, b.String())
	}
}

// A warm-up spec sets exactly one of its count, duration and rule, none
// negative; anything else is refused, never read as one of them.
func TestWarmupSpecOneOf(t *testing.T) {
	recs := []Record{{ID: "a", Sent: 0, CompletionTokens: 1, Chunks: []time.Duration{5}}, {ID: "b", Sent: 10, CompletionTokens: 1, Chunks: []time.Duration{5}}}
	rule := &LessonsWarmup
	for _, c := range []struct {
		spec WarmupSpec
		ok   bool
	}{
		{WarmupSpec{}, false},
		{WarmupSpec{Requests: 1}, true},
		{WarmupSpec{Duration: time.Second}, true},
		{WarmupSpec{Rule: rule}, true},
		{WarmupSpec{Requests: 1, Duration: time.Second}, false},
		{WarmupSpec{Requests: 1, Rule: rule}, false},
		{WarmupSpec{Duration: time.Second, Rule: rule}, false},
		{WarmupSpec{Requests: 1, Duration: time.Second, Rule: rule}, false},
		{WarmupSpec{Requests: -1}, false},
		{WarmupSpec{Duration: -time.Second}, false},
	} {
		_, err := c.spec.Cut(recs)
		if c.ok != (err == nil) || err != nil && !errors.Is(err, ErrInvalidOption) {
			t.Errorf("%+v: %v", c.spec, err)
		}
	}
}

// A warm-up cut is a send time: a run without send times refuses one,
// rather than cutting at sends that are all 0.
func TestWarmupNoSendTimes(t *testing.T) {
	run, err := ReadCSV(strings.NewReader("request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms\na,10,3,100,400\nb,10,3,120,380\nc,10,3,90,500\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = run.Summarize(Options{Warmup: &WarmupSpec{Requests: 2}})
	if !errors.Is(err, ErrInvalidOption) || !strings.Contains(err.Error(), "no send times") {
		t.Errorf("a warm-up without send times: %v", err)
	}
}
