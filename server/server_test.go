package server

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const realdata = "../../shared/realdata/prometheus"

// snapshots returns the six successive real scrapes, or skips the test when
// the shared real data are absent.
func snapshots(t *testing.T) []*Scrape {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(realdata, "*snapshot*.txt"))
	if len(files) != 6 {
		t.Skipf("the six real scrapes are absent from %s", realdata)
	}
	var out []*Scrape
	for _, f := range files { // the names sort in order: snapshot1 … snapshot6
		out = append(out, parse(t, f))
	}
	return out
}

func parse(t *testing.T, path string) *Scrape {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	s, err := ParseScrape(f)
	require.NoError(t, err)
	return s
}

// The shared data's README: consecutive deltas of generation_tokens_total
// are 128, 128, 59, 128, 128, one request each, and the inter-token
// histogram's count grows by tokens − 1 per request.
func TestRealScrapes(t *testing.T) {
	snaps := snapshots(t)
	want := []float64{128, 128, 59, 128, 128}
	sel := Selector{"model_name": "Qwen/Qwen2.5-3B-Instruct"}
	for i, tokens := range want {
		w, err := Diff(snaps[i], snaps[i+1], 10*time.Second, sel)
		require.NoError(t, err, "window %d", i+1)
		g := w.Counters["generation_tokens"]
		assert.Equal(t, tokens, g.Delta, "window %d", i+1)
		assert.Equal(t, tokens/10, g.PerSecond)
		assert.Equal(t, 1, g.Series)
		assert.Equal(t, tokens-1, w.Histograms["inter_token_latency_seconds"].Count, "window %d", i+1)
		assert.Equal(t, 1.0, w.Histograms["time_to_first_token_seconds"].Count)
		var finished float64
		for _, n := range w.Finished {
			finished += n
		}
		assert.Equal(t, 1.0, finished)
		ttft := w.Histograms["time_to_first_token_seconds"]
		mean, err := ttft.Mean()
		require.NoError(t, err)
		p50, _, err := ttft.Quantile(0.5)
		require.NoError(t, err)
		// One observation: its bucket holds it, and the median lies in
		// that bucket, at or under the bound.
		assert.LessOrEqual(t, p50, bucketOf(ttft, mean))

		// The known-output check: one client record of the same tokens
		// agrees; one token fewer does not.
		rec := llmmetrics.Record{ID: "r", FirstText: time.Millisecond, LastText: time.Second, CompletionTokens: int(tokens)}
		k, err := CheckKnownOutput(w, []llmmetrics.Record{rec})
		require.NoError(t, err)
		assert.True(t, k.Agree)
		rec.CompletionTokens--
		k, err = CheckKnownOutput(w, []llmmetrics.Record{rec})
		require.NoError(t, err)
		assert.False(t, k.Agree)
		assert.NotEmpty(t, k.Causes)
	}
	// The whole run: snapshot 1 to 6.
	w, err := Diff(snaps[0], snaps[5], time.Minute, nil)
	require.NoError(t, err)
	assert.Equal(t, 571.0, w.Counters["generation_tokens"].Delta) // 128 + 128 + 59 + 128 + 128
	// A restart: a fresh server's scrape after a busy one.
	idle := parse(t, filepath.Join(realdata, "Ahasannn__hardware-aware-router__vllm_metrics_idle.txt"))
	_, err = Diff(snaps[5], idle, time.Minute, nil)
	assert.ErrorIs(t, err, ErrCounterReset)
}

// bucketOf returns the upper bound of the bucket that holds v.
func bucketOf(h Histogram, v float64) float64 {
	for _, b := range h.Bounds {
		if v <= b {
			return b
		}
	}
	return math.Inf(1)
}

// PromQL histogram_quantile vectors (reliability.md §A5, transcribed from
// prometheus/prometheus promql/quantile.go).
func TestQuantileVectors(t *testing.T) {
	for _, c := range []struct {
		bounds  []float64
		buckets []float64
		want    map[float64]float64
		capped  map[float64]bool
	}{
		{[]float64{0, 0.5, 1}, []float64{6, 11, 14, 19},
			map[float64]float64{0.05: 0, 0.25: 0, 0.5: 0.35, 0.7: 0.883333333, 0.9: 1, 0.95: 1, 0.99: 1},
			map[float64]bool{0.9: true, 0.95: true, 0.99: true}},
		{[]float64{0.1, 0.5, 1}, []float64{10, 60, 90, 100},
			map[float64]float64{0.05: 0.05, 0.25: 0.22, 0.5: 0.42, 0.7: 0.666666667, 0.9: 1, 0.95: 1, 0.99: 1},
			map[float64]bool{0.95: true, 0.99: true}},
	} {
		h := Histogram{Name: "h", Bounds: c.bounds, Buckets: c.buckets, Count: c.buckets[len(c.buckets)-1]}
		for q, want := range c.want {
			got, lb, err := h.Quantile(q)
			require.NoError(t, err)
			assert.InDelta(t, want, got, 1e-8, "q=%v", q)
			assert.Equal(t, c.capped[q], lb, "q=%v lower bound", q)
		}
	}
	inf := Histogram{Name: "inf", Buckets: []float64{42}, Count: 42, Sum: 84}
	_, _, err := inf.Quantile(0.5)
	assert.ErrorIs(t, err, ErrNoFiniteBuckets)
	m, err := inf.Mean() // count and sum still valid
	require.NoError(t, err)
	assert.Equal(t, 2.0, m)
	empty := Histogram{Name: "e", Bounds: []float64{1, 2}, Buckets: []float64{0, 0, 0}}
	_, _, err = empty.Quantile(0.5)
	assert.ErrorIs(t, err, ErrNoSamples)
	_, err = empty.Mean()
	assert.ErrorIs(t, err, ErrNoSamples)
}

func scrape(t *testing.T, text string) *Scrape {
	t.Helper()
	s, err := ParseScrape(strings.NewReader(text))
	require.NoError(t, err)
	return s
}

const counterTmpl = `# TYPE vllm:generation_tokens_total counter
vllm:generation_tokens_total{engine="0",model_name="a"} %v
%s`

func TestDiffErrors(t *testing.T) {
	before := scrape(t, fmt.Sprintf(counterTmpl, 100, ""))
	// A counter that went down.
	_, err := Diff(before, scrape(t, fmt.Sprintf(counterTmpl, 50, "")), time.Second, nil)
	assert.ErrorIs(t, err, ErrCounterReset)
	// A series in one scrape only: listed, never taken as zero.
	extra := `vllm:generation_tokens_total{engine="1",model_name="a"} 7` + "\n"
	_, err = Diff(before, scrape(t, fmt.Sprintf(counterTmpl, 150, extra)), time.Second, nil)
	require.ErrorIs(t, err, ErrSeriesMismatch)
	assert.Contains(t, err.Error(), `engine="1"`)
	assert.Contains(t, err.Error(), "only after")
	// The selector can leave that series out.
	w, err := Diff(before, scrape(t, fmt.Sprintf(counterTmpl, 150, extra)), time.Second, Selector{"engine": "0"})
	require.NoError(t, err)
	assert.Equal(t, 50.0, w.Counters["generation_tokens"].Delta)
	// A restart seen through process_start_time_seconds or _created.
	start := "# TYPE process_start_time_seconds gauge\nprocess_start_time_seconds %v\n"
	_, err = Diff(scrape(t, fmt.Sprintf(counterTmpl, 100, fmt.Sprintf(start, 1))), scrape(t, fmt.Sprintf(counterTmpl, 200, fmt.Sprintf(start, 2))), time.Second, nil)
	assert.ErrorIs(t, err, ErrCounterReset)
	created := "# TYPE vllm:generation_tokens_created gauge\nvllm:generation_tokens_created{engine=\"0\",model_name=\"a\"} %v\n"
	_, err = Diff(scrape(t, fmt.Sprintf(counterTmpl, 100, fmt.Sprintf(created, 1))), scrape(t, fmt.Sprintf(counterTmpl, 200, fmt.Sprintf(created, 5))), time.Second, nil)
	assert.ErrorIs(t, err, ErrCounterReset)
	// A zero window.
	_, err = Diff(before, before, 0, nil)
	assert.ErrorIs(t, err, ErrWindow)

	// A histogram whose bucket layout changed.
	hist := "# TYPE vllm:time_to_first_token_seconds histogram\n" +
		"vllm:time_to_first_token_seconds_bucket{le=\"%v\"} 1\nvllm:time_to_first_token_seconds_bucket{le=\"+Inf\"} 2\n" +
		"vllm:time_to_first_token_seconds_sum 1\nvllm:time_to_first_token_seconds_count 2\n"
	_, err = Diff(scrape(t, fmt.Sprintf(hist, 0.5)), scrape(t, fmt.Sprintf(hist, 1)), time.Second, nil)
	assert.ErrorIs(t, err, ErrBucketMismatch)

	// A malformed scrape fails whole, with its line.
	_, err = ParseScrape(strings.NewReader("# TYPE x counter\nx{a=\"b\" 1\n"))
	require.ErrorIs(t, err, ErrScrape)
	assert.Contains(t, err.Error(), "line 2")
}

// iteration_tokens_total is a histogram of tokens per engine step: asked
// for a rate, the package refuses and says why.
func TestRateRefusesHistograms(t *testing.T) {
	text := "# TYPE vllm:iteration_tokens_total histogram\n" +
		"vllm:iteration_tokens_total_bucket{le=\"1\"} %v\nvllm:iteration_tokens_total_bucket{le=\"8\"} %v\nvllm:iteration_tokens_total_bucket{le=\"+Inf\"} %v\n" +
		"vllm:iteration_tokens_total_sum %v\nvllm:iteration_tokens_total_count %v\n" + fmt.Sprintf(counterTmpl, "%v", "")
	w, err := Diff(scrape(t, fmt.Sprintf(text, 1, 2, 2, 9, 2, 100)), scrape(t, fmt.Sprintf(text, 3, 6, 6, 30, 6, 140)), 2*time.Second, nil)
	require.NoError(t, err)
	_, err = w.Rate("vllm:iteration_tokens_total")
	require.ErrorIs(t, err, ErrNotACounter)
	assert.Contains(t, err.Error(), "never a token counter")
	r, err := w.Rate("vllm:generation_tokens_total")
	require.NoError(t, err)
	assert.Equal(t, 20.0, r) // (140 − 100)/2 s
	_, err = w.Rate("vllm:nothing")
	assert.ErrorIs(t, err, ErrMissing)
}

func TestParseSelector(t *testing.T) {
	sel, err := ParseSelector(`model_name="Qwen/Qwen2.5-3B-Instruct", engine=0`)
	require.NoError(t, err)
	assert.Equal(t, Selector{"model_name": "Qwen/Qwen2.5-3B-Instruct", "engine": "0"}, sel)
	for _, bad := range []string{"x", "=1", "a=1,a=2"} {
		_, err := ParseSelector(bad)
		assert.True(t, errors.Is(err, ErrSelector), bad)
	}
}

func FuzzDiff(f *testing.F) {
	f.Add([]byte(fmt.Sprintf(counterTmpl, 1, "")), []byte(fmt.Sprintf(counterTmpl, 2, "")))
	f.Add([]byte("# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 1\n"),
		[]byte("# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 3\nh_sum 4\nh_count 3\n"))
	f.Add([]byte(fmt.Sprintf(openMetrics, 100, 1.7e9, 1, 2, 2, 2, 1.7e9)), []byte(fmt.Sprintf(openMetrics, 150, 1.7e9, 2, 5, 5, 5, 1.7e9)))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		sa, err := ParseScrape(strings.NewReader(string(a)))
		if err != nil {
			return
		}
		sb, err := ParseScrape(strings.NewReader(string(b)))
		if err != nil {
			return
		}
		w, err := Diff(sa, sb, time.Second, nil)
		if err != nil {
			return
		}
		for name, h := range w.Histograms {
			for _, q := range ReportQuantiles {
				v, _, err := h.Quantile(q)
				if err == nil && math.IsNaN(v) {
					t.Fatalf("%s: NaN quantile", name)
				}
			}
		}
		if _, err := (&Report{Window: w}).MarshalJSON(); err != nil {
			t.Fatal(err)
		}
	})
}

// An OpenMetrics scrape: the counter family is named without _total, a
// _created sample follows each series, samples carry exemplars and
// timestamps, and the scrape ends in # EOF.
const openMetrics = `# TYPE vllm:generation_tokens counter
# HELP vllm:generation_tokens Number of generation tokens processed.
vllm:generation_tokens_total{model_name="m"} %v # {trace_id="abc"} 1.0 1.7e9
vllm:generation_tokens_created{model_name="m"} %v
# TYPE vllm:time_to_first_token_seconds histogram
# UNIT vllm:time_to_first_token_seconds seconds
vllm:time_to_first_token_seconds_bucket{model_name="m",le="0.1"} %v 1.7e9
vllm:time_to_first_token_seconds_bucket{model_name="m",le="1.0"} %v
vllm:time_to_first_token_seconds_bucket{model_name="m",le="+Inf"} %v
vllm:time_to_first_token_seconds_count{model_name="m"} %v
vllm:time_to_first_token_seconds_sum{model_name="m"} 1.0
vllm:time_to_first_token_seconds_created{model_name="m"} %v
# EOF
`

func TestOpenMetrics(t *testing.T) {
	before := scrape(t, fmt.Sprintf(openMetrics, 100, 1.7e9, 1, 2, 2, 2, 1.7e9))
	after := scrape(t, fmt.Sprintf(openMetrics, 150, 1.7e9, 2, 5, 5, 5, 1.7e9))
	w, err := Diff(before, after, 10*time.Second, nil)
	require.NoError(t, err)
	assert.Equal(t, 50.0, w.Counters["generation_tokens"].Delta)
	h := w.Histograms["time_to_first_token_seconds"]
	assert.Equal(t, 3.0, h.Count)
	assert.Equal(t, []float64{1, 3, 3}, h.Buckets)
	// A changed _created value is a restart, even when the counter grew.
	restarted := scrape(t, fmt.Sprintf(openMetrics, 900, 1.8e9, 2, 5, 5, 5, 1.7e9))
	_, err = Diff(before, restarted, 10*time.Second, nil)
	assert.ErrorIs(t, err, ErrCounterReset)
	assert.Contains(t, err.Error(), "generation_tokens_created")
}

func TestCatalogue(t *testing.T) {
	for _, name := range []string{"vllm:generation_tokens_total", "generation_tokens", "vllm:time_per_output_token_seconds", "gpu_cache_usage_perc", "iteration_tokens"} {
		_, ok := Describe(name)
		assert.True(t, ok, name)
	}
	m, _ := Describe("vllm:time_per_output_token_seconds") // the old name of the per-step histogram
	assert.Equal(t, "inter_token_latency_seconds", m.Name)
	_, ok := Describe("vllm:no_such_metric")
	assert.False(t, ok)
	// Every vLLM histogram of the real scrapes is in the catalogue, under
	// its name or an old one.
	for _, s := range snapshots(t)[:1] {
		for _, name := range s.Names() {
			f := s.families[name]
			if strings.HasPrefix(name, "vllm:") && f.GetType().String() == "HISTOGRAM" {
				if _, ok := Describe(name); !ok {
					t.Errorf("%s is not in the catalogue", name)
				}
			}
		}
	}
}
