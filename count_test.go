package llmmetrics

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// Catalogue #6 and #7 as issue 20 settles them: a record whose count is
// missing, zero for text that arrived, or below its chunks is valid and
// ok; it keeps TTFT and E2E, and TPOT says why it is absent.
func TestCountStates(t *testing.T) {
	cases := []struct {
		name  string
		edit  func(r *Record)
		state CountState
	}{
		{"counted", func(r *Record) {}, CountKnown},
		{"#7 no usage", func(r *Record) { r.CompletionTokens, r.NoUsage = 0, true }, CountNoUsage},
		{"#6 zero tokens with chunks", func(r *Record) { r.CompletionTokens = 0 }, CountZeroUsage},
		{"#6 tokens below chunks", func(r *Record) { r.CompletionTokens = 2 }, CountBelowChunks},
		{"no usage, times only", func(r *Record) {
			r.Chunks, r.FirstText, r.LastText, r.CompletionTokens, r.NoUsage = nil, ms(100), ms(140), 0, true
		}, CountNoUsage},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := okRecord("r9") // chunks at 100, 120, 140 ms, n = 3
			c.edit(&r)
			require.NoError(t, r.Validate())
			assert.Equal(t, CategoryOK, r.Category())
			assert.Equal(t, c.state, r.CountState())
			ttft, err := r.TTFT()
			require.NoError(t, err)
			assert.Equal(t, ms(100), ttft)
			e2e, err := r.E2E()
			require.NoError(t, err)
			assert.Equal(t, ms(140), e2e)
			_, err = r.TPOT()
			_, uerr := r.UserTPS()
			if c.state == CountKnown {
				require.NoError(t, err)
				require.NoError(t, uerr)
				return
			}
			require.ErrorIs(t, err, ErrNoCount)
			require.ErrorIs(t, uerr, ErrNoCount)
			if c.state == CountBelowChunks {
				require.ErrorIs(t, err, ErrTokensBelowChunks)
			}
		})
	}
	// With neither a count nor any text, an ok record is zero-token.
	r := Record{ID: "z"}
	assert.Equal(t, CategoryZeroToken, r.Category())
}

// uncountedRun is a run by hand: r1 counted, r2 without usage, r3 with a
// usage of zero, r4 with a count below its chunks, r5 failed.
func uncountedRun() []Record {
	return []Record{
		{ID: "r1", Sent: 0, Chunks: durations(100, 140, 180), CompletionTokens: 3, PromptTokens: 10},
		{ID: "r2", Sent: ms(10), Chunks: durations(50, 90), NoUsage: true},
		{ID: "r3", Sent: ms(20), Chunks: durations(200, 260)},
		{ID: "r4", Sent: ms(30), Chunks: durations(30, 70, 120), CompletionTokens: 1, PromptTokens: 4},
		{ID: "r5", Sent: ms(40), Status: StatusError, Message: "HTTP 500: boom"},
	}
}

func TestSummarizeUncounted(t *testing.T) {
	slo := &SLO{TTFT: ms(1000), TPOT: ms(30)}
	s, err := Summarize(uncountedRun(), Options{SLO: slo})
	require.NoError(t, err)
	a := s.Requests
	// The accounting identity: 5 = 4 ok + 0 + 1 failed + 0 + 0.
	assert.Equal(t, Accounting{Offered: 5, OK: 4, Failed: 1, Errors: 1, Uncounted: Uncounted{NoUsage: 1, ZeroUsage: 1, BelowChunks: 1}}, a)
	assert.Equal(t, a.Offered, a.OK+a.ZeroToken+a.Failed+a.Rejected+a.Warmup)

	// TTFT over the four ok: 100, 50, 200, 30 ms; E2E 180, 90, 260, 120.
	require.NotNil(t, s.TTFT)
	assert.Equal(t, 4, s.TTFT.N)
	assert.Equal(t, ms(30), s.TTFT.Min)
	assert.Equal(t, ms(200), s.TTFT.Max)
	assert.Equal(t, 4, s.E2E.N)
	assert.Equal(t, ms(260), s.E2E.Max)
	// TPOT of r1 only: (180 − 100) / 2 = 40 ms; no one-token request.
	require.NotNil(t, s.TPOT)
	assert.Equal(t, 1, s.TPOT.N)
	assert.Equal(t, ms(40), s.TPOT.Mean)
	assert.Equal(t, 0, s.TPOT.Excluded)
	// Gaps: r1 40, 40; r2 40; r3 60; r4 40, 50: six, chunk basis (only r1
	// has one chunk per token; whether r2, r3 and r4, without a usable
	// count, had one is unknown, and none is known to have had more).
	require.NotNil(t, s.ITL)
	assert.Equal(t, 6, s.ITL.N)
	assert.Equal(t, BasisChunk, s.ITL.Basis)
	assert.Equal(t, 1, s.ITL.TokenBasis)
	assert.Equal(t, 0, s.ITL.ChunkBasis)
	assert.Equal(t, 3, s.ITL.UnknownBasis)
	assert.Equal(t, 4, s.MaxGap.N)
	assert.Equal(t, ms(60), s.MaxGap.Max)
	// Window: first send 0 → last text 20 + 260 = 280 ms. Output tokens
	// are r1's 3 only: 3 / 0.28 s; prompt tokens 10 + 4 = 14: 50 /s.
	require.NotNil(t, s.Throughput)
	assert.Equal(t, ms(280), s.Throughput.Window.Length)
	assert.Equal(t, int64(3), s.Throughput.OutputTokens)
	assert.InDelta(t, 3/0.28, float64(s.Throughput.OutputTokensPerSecond), 1e-9)
	assert.InDelta(t, 50.0, float64(s.Throughput.PromptTokensPerSecond), 1e-9)
	assert.Equal(t, 4, s.Throughput.Requests)
	// Goodput: r1's TPOT 40 ms misses 30 ms; r2–r4 meet the TTFT limit of
	// 1 s, but without a usable count their TPOT is unknown: unjudged, not
	// good, so 0 good of 5 offered is a lower bound. No request has one
	// token, to which the TPOT limit would not apply.
	require.NotNil(t, s.Goodput)
	assert.Equal(t, 0, s.Goodput.Good)
	assert.Equal(t, 5, s.Goodput.Offered)
	assert.Equal(t, 3, s.Goodput.Unjudged)
	assert.Equal(t, 0, s.Goodput.TPOTNotApplicable)
	assert.Equal(t, 1, s.Goodput.FailedTPOT)
	// The output-length workload has r1 alone.
	require.NotNil(t, s.Workload)
	assert.Equal(t, 1, s.Workload.Output.N)

	var b bytes.Buffer
	require.NoError(t, s.WriteTable(&b))
	assert.Contains(t, b.String(), "no token count: 3 ok requests (1 no usage, 1 usage of zero, 1 count below the chunks)")
	out, err := json.Marshal(s)
	require.NoError(t, err)
	assert.Contains(t, string(out), `"no_count":{"total":3,"no_usage":1,"zero_usage":1,"below_chunks":1}`)
	assert.Contains(t, string(out), `"attainment":0,"attainment_lower_bound":true,"attainment_upper_bound":0.6,"unjudged":3`) // (0 good + 3 unjudged) / 5
	assert.Contains(t, string(out), `"requests_per_s":0,"window_s":0.28,"requests_per_s_lower_bound":true`)                   // 0 good / 0.28 s, the unjudged not counted
	assert.Contains(t, string(out), `"excluded_one_token":0,"excluded_unstreamed":0,"excluded_no_count":3`)                   // r2–r4 without a usable count
	assert.Contains(t, b.String(), "lower bounds: 3 ok requests met every limit but TPOT, which their unknown token count leaves unjudged; they are not counted good: the attainment is between 0.00% and 60.00%\n")
	assert.Contains(t, b.String(), "attainment  0 good / 5 offered = ≥0.00% (")
	assert.Contains(t, b.String(), "goodput     ≥0.000 good requests/s")

	// Without a TPOT limit every request is judged: r2–r4 are good.
	s, err = Summarize(uncountedRun(), Options{SLO: &SLO{TTFT: time.Second}})
	require.NoError(t, err)
	assert.Equal(t, [2]int{4, 0}, [2]int{s.Goodput.Good, s.Goodput.Unjudged})
}

// A run without any count keeps TTFT and E2E and says why TPOT is absent.
func TestSummarizeNoCountAtAll(t *testing.T) {
	recs := uncountedRun()[1:3]
	s, err := Summarize(recs, Options{})
	require.NoError(t, err)
	assert.Equal(t, 2, s.TTFT.N)
	assert.Nil(t, s.TPOT)
	assert.Contains(t, s.Absent["tpot"], "2 without a usable count")
	assert.Equal(t, int64(0), s.Throughput.OutputTokens)
}

// What WriteJSONL writes of a record without usage reads back the same,
// in strict mode: report never refuses a file the observer wrote.
func TestJSONLNoUsageRoundTrip(t *testing.T) {
	recs := uncountedRun()
	recs = append(recs, Record{ID: "r6", NoUsage: true, FirstText: ms(5), LastText: ms(9)})
	var b bytes.Buffer
	require.NoError(t, WriteJSONL(&b, recs))
	assert.NotContains(t, strings.Split(b.String(), "\n")[1], "completion_tokens")
	run, err := ReadJSONL(&b)
	require.NoError(t, err)
	require.Len(t, run.Records, len(recs))
	for i := range recs {
		assert.Equal(t, recs[i].NoUsage, run.Records[i].NoUsage, recs[i].ID)
		assert.Equal(t, recs[i].CountState(), run.Records[i].CountState(), recs[i].ID)
	}
	s, err := run.Summarize(Options{})
	require.NoError(t, err)
	assert.Equal(t, 2, s.Requests.Uncounted.NoUsage)
}

// Over random runs with counts missing, zero or below the chunks: every
// record is in one category; every ok request is a TTFT sample; each ok
// request is a TPOT sample, a one-token request or uncounted; and the
// output tokens are those of the counted ok requests, summed here apart.
func TestUncountedProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		recs := genRecords(t, false)
		var wantTokens int64
		atOnce := 0
		for i := range recs {
			r := &recs[i]
			if r.Status == StatusOK && len(r.Chunks) > 0 {
				switch rapid.IntRange(0, 3).Draw(t, "count") {
				case 1:
					r.CompletionTokens, r.NoUsage = 0, true
				case 2:
					r.CompletionTokens = 0
				case 3:
					r.CompletionTokens = rapid.IntRange(0, len(r.Chunks)-1).Draw(t, "below")
				}
			}
			countedOK := r.Status == StatusOK && !r.Warmup && !r.NoUsage && r.CompletionTokens > 0 && len(r.Chunks) <= r.CompletionTokens
			if countedOK {
				wantTokens += int64(r.CompletionTokens)
			}
			if countedOK && r.CompletionTokens >= 2 && (len(r.Chunks) == 1 || len(r.Chunks) == 0 && r.FirstText == r.LastText) {
				atOnce++ // left out of TPOT, counted apart from the uncounted
			}
		}
		s, err := Summarize(recs, Options{Window: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		a := s.Requests
		if a.Offered != a.OK+a.ZeroToken+a.Failed+a.Rejected+a.Warmup {
			t.Fatalf("accounting: %+v", a)
		}
		if a.OK > a.Unstreamed && s.TTFT.N != a.OK-a.Unstreamed {
			t.Fatalf("%d ok requests, %d TTFT samples", a.OK, s.TTFT.N)
		}
		tpots := 0
		if s.TPOT != nil {
			tpots = s.TPOT.N
			if s.TPOT.Unstreamed != atOnce {
				t.Fatalf("TPOT leaves out %d unstreamed, want %d", s.TPOT.Unstreamed, atOnce)
			}
		}
		if tpots+a.OneToken+a.Uncounted.Total()+atOnce != a.OK {
			t.Fatalf("%d TPOT + %d one-token + %d uncounted + %d at once != %d ok", tpots, a.OneToken, a.Uncounted.Total(), atOnce, a.OK)
		}
		if s.Throughput.OutputTokens != wantTokens {
			t.Fatalf("output tokens %d, want %d", s.Throughput.OutputTokens, wantTokens)
		}
	})
}

// A count of one is said in the singular: "1 ok request", never "1 ok
// requests".
func TestTableSaysOneOKRequest(t *testing.T) {
	one := okRecord("r1")
	one.Chunks, one.CompletionTokens = durations(100), 1 // one token: no TPOT
	s, err := Summarize([]Record{one}, Options{})
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, s.WriteTable(&b))
	assert.Contains(t, b.String(), "; 1 ok request had one token (no TPOT)")
	assert.Contains(t, b.String(), "counting 1 ok request:")
	assert.NotContains(t, b.String(), "1 ok requests")
}
