package llmmetrics

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// noUsageRun is 20 ok requests without usage (the OpenAI default without
// include_usage), each asking max_tokens 32, with two chunks 40 ms apart;
// half, when counted is set, report 5 output tokens instead.
func noUsageRun(counted bool) []Record {
	recs := make([]Record, 20)
	for i := range recs {
		recs[i] = Record{ID: string(rune('a' + i)), Sent: ms(float64(i * 10)), Chunks: durations(100, 140), NoUsage: true, MaxTokens: 32}
		if counted && i%2 == 0 {
			recs[i].NoUsage, recs[i].CompletionTokens = false, 5
		}
	}
	return recs
}

// writeBoth returns the summary's text and its JSON, decoded.
func writeBoth(t *testing.T, s *Summary) (string, map[string]any) {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, s.WriteTable(&b))
	raw, err := s.MarshalJSON()
	require.NoError(t, err)
	var j map[string]any
	require.NoError(t, json.Unmarshal(raw, &j))
	return b.String(), j
}

// With no ok answer carrying a count, the output rate is absent with its
// reason, never 0, and the sentences about the ok requests say what the
// records hold: 20 say their max_tokens, none has a count.
func TestOutputRateAbsentWithoutUsage(t *testing.T) {
	s, err := Summarize(noUsageRun(false), Options{Window: time.Second})
	require.NoError(t, err)
	assert.Equal(t, "no ok request has an output token count (20 with no usage)", s.Absent["output_tokens_per_s"])
	text, j := writeBoth(t, s)
	assert.Contains(t, text, "  output  absent: no ok request has an output token count (20 with no usage)\n")
	assert.NotContains(t, text, "0.000 tokens/s (0 tokens)")
	th := j["throughput"].(map[string]any)
	assert.NotContains(t, th, "output_tokens_per_s")
	assert.NotContains(t, th, "output_tokens")
	assert.Contains(t, j["absent"], "output_tokens_per_s")

	// The gaps' basis of requests without a count is unknown, not "did
	// not": 0 known to have one chunk per token, 0 known not to.
	assert.Contains(t, text, "pooled over 20 requests with chunk arrivals: 0 had one chunk per token, 0 did not, 20 unknown (no token count)")
	assert.Equal(t, "20 ok requests say their max_tokens, but none of them has an output token count to compare it with", s.Absent["workload.early_stop"])
	assert.Equal(t, "none of the 20 ok requests has an output token count", s.Absent["workload.output"])
}

// With half the answers counted, the output rate is kept and marked a
// lower bound over the 10 it counts: 10 × 5 tokens over 1 s = 50 /s.
func TestOutputRateLowerBound(t *testing.T) {
	s, err := Summarize(noUsageRun(true), Options{Window: time.Second})
	require.NoError(t, err)
	require.NotNil(t, s.Throughput)
	assert.NotContains(t, s.Absent, "output_tokens_per_s")
	assert.True(t, s.Throughput.LowerBound())
	assert.Equal(t, 10, s.Throughput.CountedRequests)
	assert.Equal(t, OutputTokenRate(50), s.Throughput.OutputTokensPerSecond)
	text, j := writeBoth(t, s)
	assert.Contains(t, text, "  output  ≥50.000 tokens/s (≥50 tokens), a LOWER BOUND: it counts 10 of the 20 ok requests")
	th := j["throughput"].(map[string]any)
	assert.Equal(t, true, th["output_tokens_lower_bound"])
	assert.Equal(t, 10.0, th["output_tokens_requests"])
	assert.Equal(t, 50.0, th["output_tokens_per_s"])

	// Every answer counted: no mark.
	recs := noUsageRun(true)
	for i := range recs {
		recs[i].NoUsage, recs[i].CompletionTokens = false, 5
	}
	s, err = Summarize(recs, Options{Window: time.Second})
	require.NoError(t, err)
	assert.False(t, s.Throughput.LowerBound())
	_, j = writeBoth(t, s)
	assert.NotContains(t, j["throughput"], "output_tokens_lower_bound")
}

// A reply its client saw come as one body is unstreamed whatever its
// count: without usage (its TTFT would read its E2E, 300 ms) or of one
// token, it is counted apart and left out of TTFT, and its E2E kept, as
// the JSON lines carry it (one_body). Of a stream at 100 ms and the two
// bodies, TTFT has the stream alone; E2E all three.
func TestOneBodyUnstreamed(t *testing.T) {
	recs := []Record{
		{ID: "s", Chunks: durations(100, 140, 180), CompletionTokens: 3},
		{ID: "nousage", Chunks: durations(300), NoUsage: true, Client: &ClientSide{OneBody: true}},
		{ID: "one", Chunks: durations(200), CompletionTokens: 1, Client: &ClientSide{OneBody: true}},
	}
	var b bytes.Buffer
	require.NoError(t, WriteJSONL(&b, recs))
	assert.Contains(t, b.String(), `"one_body":true`)
	back, err := ReadJSONL(&b)
	require.NoError(t, err)
	assert.Equal(t, recs[1].Client, back.Records[1].Client)
	for _, in := range [][]Record{recs, back.Records} {
		s, err := Summarize(in, Options{})
		require.NoError(t, err)
		assert.Equal(t, 2, s.Requests.Unstreamed)
		assert.Equal(t, [2]int{1, 3}, [2]int{s.TTFT.N, s.E2E.N})
		assert.Equal(t, ms(100), s.TTFT.Max)
		assert.Equal(t, ms(300), s.E2E.Max)
		assert.Contains(t, s.Absent["ttft_unstreamed"], "2 of the 3 ok requests left out")
		assert.NotContains(t, s.Absent, "tpot_unstreamed", "neither body has a TPOT by its count")
	}
	// Its text at once, a body has no TPOT, whatever its count: a TPOT
	// limit does not apply to it, never unjudged, even at 1 ms, which the
	// stream's 40 ms fails; TPOT's line and the goodput's agree.
	s, err := Summarize(recs, Options{SLO: &SLO{TTFT: time.Second, TPOT: time.Millisecond}})
	require.NoError(t, err)
	assert.Equal(t, [4]int{2, 0, 2, 1}, [4]int{s.Goodput.Good, s.Goodput.Unjudged, s.Goodput.TPOTNotApplicable, s.Goodput.FailedTPOT})
}

// An answer whose text came at once keeps its E2E and leaves TTFT and
// TPOT, counted apart: a streamed one (3 tokens at 100, 140, 180 ms), one
// chunk of 101 tokens at 500 ms, and a JSON body of 20 tokens at 300 ms
// (no chunk arrivals, first text = last text).
func TestUnstreamedAnswers(t *testing.T) {
	recs := []Record{
		{ID: "s", Sent: 0, Chunks: durations(100, 140, 180), CompletionTokens: 3},
		{ID: "one", Sent: 0, Chunks: durations(500), CompletionTokens: 101},
		{ID: "json", Sent: 0, FirstText: ms(300), LastText: ms(300), CompletionTokens: 20},
	}
	s, err := Summarize(recs, Options{})
	require.NoError(t, err)
	assert.Equal(t, 2, s.Requests.Unstreamed)
	require.NotNil(t, s.TTFT)
	assert.Equal(t, 1, s.TTFT.N)
	assert.Equal(t, ms(100), s.TTFT.Max)
	assert.Equal(t, "s", s.TTFT.Points[0].ID)
	assert.Equal(t, 3, s.E2E.N)
	assert.Equal(t, ms(500), s.E2E.Max)
	// TPOT of s alone: (180 − 100) / 2 = 40 ms, and its gap-weighted mean
	// too (the others' 120 gaps of 0 ms are not in it).
	require.NotNil(t, s.TPOT)
	assert.Equal(t, 1, s.TPOT.N)
	assert.Equal(t, ms(40), s.TPOT.Min)
	assert.Equal(t, ms(40), s.TPOT.GapWeightedMean)
	// Their tokens count: 3 + 101 + 20.
	assert.Equal(t, int64(124), s.Throughput.OutputTokens)
	// The gaps are s's two, of one token each: "one"'s single chunk adds
	// no gap and does not make them chunk gaps; "json" has no chunks.
	require.NotNil(t, s.ITL)
	assert.Equal(t, BasisToken, s.ITL.Basis)
	assert.Equal(t, [3]int{1, 0, 1}, [3]int{s.ITL.TokenBasis, s.ITL.ChunkBasis, s.ITL.NoChunks})
	text, j := writeBoth(t, s)
	assert.Contains(t, text, "not streamed: 2 ok requests whose text came at once")
	assert.Equal(t, 2.0, j["requests"].(map[string]any)["unstreamed"])
	// TTFT and TPOT say in JSON why they leave the two out.
	absent := j["absent"].(map[string]any)
	assert.Equal(t, "2 of the 3 ok requests left out: their text came at once (not streamed), so they have no time to first token", absent["ttft_unstreamed"])
	assert.Equal(t, "2 of the 3 ok requests of two or more counted tokens left out: their text came at once (not streamed), so they have no time per token", absent["tpot_unstreamed"])
	assert.NotContains(t, text, "ttft_unstreamed", "the text says it in its own line")
	assert.Equal(t, 2.0, j["tpot_ms"].(map[string]any)["excluded_unstreamed"], "the count beside the distribution")

	// A TPOT limit does not apply to them, as TPOT leaves them out (it
	// judged them with a TPOT of 0): s's 40 ms fails 1 ms, the others are
	// good and not applicable.
	s, err = Summarize(recs, Options{SLO: &SLO{TPOT: time.Millisecond}})
	require.NoError(t, err)
	assert.Equal(t, [3]int{2, 2, 1}, [3]int{s.Goodput.Good, s.Goodput.TPOTNotApplicable, s.Goodput.FailedTPOT})

	// Only unstreamed answers: TTFT and TPOT are absent, with the reason.
	s, err = Summarize(recs[1:], Options{})
	require.NoError(t, err)
	assert.Nil(t, s.TTFT)
	assert.Nil(t, s.TPOT)
	assert.Contains(t, s.Absent[keyTTFT], "not streamed")
	assert.Contains(t, s.Absent[keyTPOT], "2 whose text came at once")
	assert.NotContains(t, s.Absent, "ttft_unstreamed", "TTFT is absent as a whole")
	assert.NotContains(t, s.Absent, "tpot_unstreamed")
	assert.Equal(t, 2, s.E2E.N)
	text, _ = writeBoth(t, s)
	assert.False(t, strings.Contains(text, "TPOT 0.000"), text)
}

// With 10 of 20 ok answers carrying a prompt count of 65 (the others
// none), the prompt rate is kept and marked a lower bound over the 10:
// 10 × 65 tokens over 1 s = 650 /s.
func TestPromptRateLowerBound(t *testing.T) {
	recs := noUsageRun(false)
	for i := range recs {
		recs[i].NoUsage, recs[i].CompletionTokens = false, 5
		if i%2 == 0 {
			recs[i].PromptTokens = 65
		}
	}
	s, err := Summarize(recs, Options{Window: time.Second})
	require.NoError(t, err)
	require.NotNil(t, s.Throughput)
	assert.True(t, s.Throughput.PromptLowerBound())
	assert.False(t, s.Throughput.LowerBound())
	assert.Equal(t, 10, s.Throughput.PromptCountedRequests)
	assert.Equal(t, PromptTokenRate(650), s.Throughput.PromptTokensPerSecond)
	text, j := writeBoth(t, s)
	assert.Contains(t, text, "  prompt  ≥650.000 tokens/s (≥650 tokens), a LOWER BOUND: it counts 10 of the 20 ok requests, the others have no prompt token count")
	th := j["throughput"].(map[string]any)
	assert.Equal(t, true, th["prompt_tokens_lower_bound"])
	assert.Equal(t, 10.0, th["prompt_tokens_requests"])
	assert.Equal(t, 650.0, th["prompt_tokens_per_s"])
	assert.NotContains(t, th, "output_tokens_lower_bound")

	// Every answer counted: no mark.
	for i := range recs {
		recs[i].PromptTokens = 65
	}
	s, err = Summarize(recs, Options{Window: time.Second})
	require.NoError(t, err)
	assert.False(t, s.Throughput.PromptLowerBound())
	text, j = writeBoth(t, s)
	assert.Contains(t, text, "  prompt  1300.000 tokens/s (1300 tokens), a separate figure")
	assert.NotContains(t, j["throughput"], "prompt_tokens_lower_bound")
}

// The unstreamed answers are left out while the samples are gathered, on
// every core and from a table's columns: TTFT and TPOT of a run equal
// those of the same run without its unstreamed answers, which need no
// leaving out, for records and for a CSV file, with the unstreamed
// answers sparse and dense (a CSV's TTFT column is then read in place
// through the runs between them), and every other one (then copied).
func TestUnstreamedLeftOutAtScale(t *testing.T) {
	for _, every := range []int{1000, 5, 2} {
		const n = 20_000 // 4,096 records a core at least: more than one part
		var all, streamedOnly []Record
		for i := range n {
			first := ms(float64(50 + i*37%400))
			r := Record{ID: fmt.Sprint("r", i), Sent: ms(float64(i)), CompletionTokens: 8}
			if i%every == 0 {
				r.Chunks = []time.Duration{first} // 8 tokens in one chunk
			} else {
				r.Chunks = []time.Duration{first, first + ms(float64(10+i%90))}
			}
			all = append(all, r)
			if i%every != 0 {
				streamedOnly = append(streamedOnly, r)
			}
		}
		want, err := Summarize(streamedOnly, Options{})
		require.NoError(t, err)
		got, err := Summarize(all, Options{})
		require.NoError(t, err)
		require.Equal(t, n/every, got.Requests.Unstreamed)
		assert.Equal(t, want.TTFT, got.TTFT, "records, every %d", every)
		// Every unstreamed record has 8 counted tokens: each is left out of TPOT as such.
		assert.Equal(t, n/every, got.TPOT.Unstreamed, "records, every %d", every)
		got.TPOT.Unstreamed = 0
		assert.Equal(t, want.TPOT, got.TPOT, "records, every %d", every)

		var b bytes.Buffer
		require.NoError(t, WriteCSV(&b, all))
		fromFile, _, err := ReadOptions{}.Summarize(&b, Options{})
		require.NoError(t, err)
		b.Reset()
		require.NoError(t, WriteCSV(&b, streamedOnly))
		wantFile, _, err := ReadOptions{}.Summarize(&b, Options{})
		require.NoError(t, err)
		require.Equal(t, n/every, fromFile.Requests.Unstreamed)
		assert.Equal(t, wantFile.TTFT, fromFile.TTFT, "CSV, every %d", every)
		assert.Equal(t, n/every, fromFile.TPOT.Unstreamed, "CSV, every %d", every)
		fromFile.TPOT.Unstreamed = 0
		assert.Equal(t, wantFile.TPOT, fromFile.TPOT, "CSV, every %d", every)
		assert.Equal(t, want.TTFT.Mean, fromFile.TTFT.Mean)
	}
}

// The client's time to first answer and the open loop's TTFT from the
// scheduled time leave an unstreamed answer out, as TTFT does; its E2E
// from the scheduled time is kept: of s (first answer 100 ms) and "one"
// (its 101 tokens in one chunk at 500 ms), each first answer's and
// TTFT's n is 1 (100 ms), E2E's 2 (max 500 ms).
func TestUnstreamedClientFigures(t *testing.T) {
	recs := []Record{
		{ID: "s", Chunks: durations(100, 140, 180), CompletionTokens: 3, Client: &ClientSide{HasAnswer: true, FirstAnswer: ms(100), HasSchedule: true}},
		{ID: "one", Chunks: durations(500), CompletionTokens: 101, Client: &ClientSide{HasAnswer: true, FirstAnswer: ms(500), HasSchedule: true}},
	}
	s, err := Summarize(recs, Options{})
	require.NoError(t, err)
	c := s.Client
	require.NotNil(t, c)
	assert.Equal(t, [2]int{1, 1}, [2]int{c.FirstAnswer.N, c.TTFTFromScheduled.N})
	assert.Equal(t, [2]time.Duration{ms(100), ms(100)}, [2]time.Duration{c.FirstAnswer.Max, c.TTFTFromScheduled.Max})
	assert.Equal(t, 2, c.E2EFromScheduled.N)
	assert.Equal(t, ms(500), c.E2EFromScheduled.Max)
}

// An answer of one chunk whose count no server gave may be one token,
// streamed, or many at once: it leaves TTFT, counted unstreamed, unless
// max_tokens 1 holds it to one token. Either way any count meets a TPOT
// limit (TPOT 0 at once, none for one token), so it is judged, not
// unjudged. s streams 3 tokens at 100, 140, 180 ms; u is one chunk at
// 200 ms asking 32; m one chunk at 250 ms asking 1; b a body at 300 ms.
func TestOneChunkNoCount(t *testing.T) {
	recs := []Record{
		{ID: "s", Chunks: durations(100, 140, 180), CompletionTokens: 3},
		{ID: "u", Chunks: durations(200), NoUsage: true, MaxTokens: 32},
		{ID: "m", Chunks: durations(250), NoUsage: true, MaxTokens: 1},
		{ID: "b", Chunks: durations(300), NoUsage: true, Client: &ClientSide{OneBody: true}},
	}
	s, err := Summarize(recs, Options{SLO: &SLO{TTFT: time.Second, TPOT: 50 * time.Millisecond}})
	require.NoError(t, err)
	assert.Equal(t, 2, s.Requests.Unstreamed, "u and b")
	require.NotNil(t, s.TTFT)
	assert.Equal(t, [3]time.Duration{2, ms(100), ms(250)}, [3]time.Duration{time.Duration(s.TTFT.N), s.TTFT.Min, s.TTFT.Max}, "s and m")
	assert.Equal(t, 4, s.E2E.N)
	assert.Equal(t, "2 of the 4 ok requests left out: their text came at once (not streamed, or in one chunk that no count says held one token), so they have no time to first token", s.Absent["ttft_unstreamed"])
	// The gaps: s's two, of one token each; m's one chunk has an unknown
	// basis; u's and b's chunks, at once, have none.
	require.NotNil(t, s.ITL)
	assert.Equal(t, [4]int{1, 0, 1, 0}, [4]int{s.ITL.TokenBasis, s.ITL.ChunkBasis, s.ITL.UnknownBasis, s.ITL.NoChunks})
	// s's TPOT (180 − 100) / 2 = 40 ms meets 50 ms; u, m and b meet it
	// whatever their count.
	assert.Equal(t, [2]int{4, 0}, [2]int{s.Goodput.Good, s.Goodput.Unjudged})
	// u, m and b have no TPOT, and none is a one-token request.
	text, _ := writeBoth(t, s)
	assert.Contains(t, text, "TPOT limit not applicable to 3 requests (0 of one token; 3 whose text came at once, or held to one token by max_tokens without a count)")
	assert.Contains(t, text, "  failing: ttft 0, tpot 0; ", "only the limits set")
	// The TPOT line counts as the JSON's excluded_* do: 1 + 0 + 0 + 3 = 4 ok.
	assert.Contains(t, text, "0 one-token requests excluded, 0 of two or more counted tokens not streamed, 3 without a count\n")
	assert.Contains(t, text, "no token count: 3 ok requests (3 no usage, 0 usage of zero, 0 count below the chunks): in E2E, and in TTFT and the gaps when streamed; not in TPOT or the token rates")

	// No gap: m has one chunk; a CSV row has none.
	s, err = Summarize(recs[2:3], Options{})
	require.NoError(t, err)
	assert.Equal(t, "no ok request has two or more chunk arrivals", s.Absent["itl"])
	s, err = Summarize([]Record{{ID: "csv", FirstText: ms(100), LastText: ms(200), CompletionTokens: 3}}, Options{})
	require.NoError(t, err)
	assert.Equal(t, "no ok record carries chunk arrival times (a CSV file keeps none, nor do some tools' files)", s.Absent["itl"])
}
