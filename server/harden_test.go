package server

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestScrapeRefusesRepeatedSeries(t *testing.T) {
	// The parser keeps both lines; a window would have used whichever came
	// last (a delta of 98,068 instead of 128 on a real scrape).
	in := `# TYPE vllm:generation_tokens_total counter
vllm:generation_tokens_total{engine="0",model_name="a"} 100
vllm:generation_tokens_total{model_name="a",engine="0"} 98196
`
	_, err := ParseScrape(strings.NewReader(in))
	require.ErrorIs(t, err, ErrScrape)
	assert.Contains(t, err.Error(), `series vllm:generation_tokens_total{engine="0",model_name="a"} appears twice`)
}

func TestScrapeRefusesNonFinite(t *testing.T) {
	for _, c := range []struct{ in, msg string }{
		{"# TYPE c_total counter\nc_total NaN\n", "c_total{}: the counter is NaN"},
		{"# TYPE c_total counter\nc_total +Inf\n", "the counter is +Inf"},
		{"# TYPE c_total counter\nc_total -3\n", "the counter is -3"},
		{"# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_bucket{le=\"+Inf\"} 1\nh_sum NaN\nh_count 1\n", "h{}: _sum is NaN"},
	} {
		_, err := ParseScrape(strings.NewReader(c.in))
		require.ErrorIs(t, err, ErrBadValue, c.in)
		assert.Contains(t, err.Error(), c.msg)
	}
	// A gauge may be NaN: no window reads one as a counter.
	_, err := ParseScrape(strings.NewReader("# TYPE g gauge\ng NaN\n# TYPE c_total counter\nc_total 1\n"))
	assert.NoError(t, err)
}

func TestDiffPicksNothing(t *testing.T) {
	a := scrape(t, fmt.Sprintf(counterTmpl, 100, ""))
	b := scrape(t, fmt.Sprintf(counterTmpl, 228, ""))
	_, err := Diff(a, b, time.Second, Selector{"model_name": "nope"})
	require.ErrorIs(t, err, ErrNoSeries)
	assert.Contains(t, err.Error(), `the selector model_name="nope" matches no counter or histogram series; the scrapes have model_name="a"`)
	_, err = Diff(a, b, time.Second, Selector{"pod": "x"})
	assert.ErrorContains(t, err, "no series has a label pod")
	empty := scrape(t, "")
	_, err = Diff(empty, empty, time.Second, nil)
	assert.ErrorIs(t, err, ErrNoSeries)
	w, err := Diff(a, b, time.Second, Selector{"model_name": "a"})
	require.NoError(t, err)
	assert.Equal(t, 128.0, w.Counters["generation_tokens"].Delta)
}

// Cumulative buckets that decrease are read as PromQL reads them (their
// running maximum), and the window says they were not monotonic.
func TestNonMonotonicWindow(t *testing.T) {
	h := `# TYPE vllm:time_to_first_token_seconds histogram
vllm:time_to_first_token_seconds_bucket{le="0.01"} %d
vllm:time_to_first_token_seconds_bucket{le="0.02"} %d
vllm:time_to_first_token_seconds_bucket{le="0.04"} %d
vllm:time_to_first_token_seconds_bucket{le="+Inf"} %d
vllm:time_to_first_token_seconds_sum 0
vllm:time_to_first_token_seconds_count %d
`
	before := scrape(t, fmt.Sprintf(h, 0, 0, 0, 0, 0))
	// Deltas 4, 0, 8, 8 by le: the le="0.02" bucket lost its four.
	after := scrape(t, fmt.Sprintf(h, 4, 0, 8, 8, 8))
	w, err := Diff(before, after, time.Second, nil)
	require.NoError(t, err)
	ttft := w.Histograms["time_to_first_token_seconds"]
	assert.False(t, ttft.Monotonic())
	// On the envelope 4, 4, 8, 8: rank 4 is reached at le=0.01, so the
	// median is 0.01·(4/4) = 0.01. Taking the counts as they are would put
	// it in (0.02, 0.04]: 0.02 + 0.02·(4/8) = 0.03.
	p50, _, err := ttft.Quantile(0.5)
	require.NoError(t, err)
	assert.Equal(t, 0.01, p50)
}

// A report gives every counter and histogram its unit, and flags a
// histogram whose quantiles rest on few observations or on buckets that
// were not monotonic.
func TestReportUnitsAndFlags(t *testing.T) {
	h := `# TYPE vllm:e2e_request_latency_seconds histogram
vllm:e2e_request_latency_seconds_bucket{le="0.1"} %d
vllm:e2e_request_latency_seconds_bucket{le="0.2"} %d
vllm:e2e_request_latency_seconds_bucket{le="+Inf"} %d
vllm:e2e_request_latency_seconds_sum 0.000073
vllm:e2e_request_latency_seconds_count %d
# TYPE vllm:generation_tokens_total counter
vllm:generation_tokens_total %d
`
	before := scrape(t, fmt.Sprintf(h, 0, 0, 0, 0, 0))
	after := scrape(t, fmt.Sprintf(h, 1, 1, 1, 1, 7))
	w, err := Diff(before, after, time.Second, nil)
	require.NoError(t, err)
	r := &Report{Window: w}
	js, err := r.MarshalJSON()
	require.NoError(t, err)
	assert.Contains(t, string(js), `"unit":"seconds"`)
	assert.Contains(t, string(js), `"unit":"tokens"`)
	assert.Contains(t, string(js), `"flags":["only 1 observations: the quantiles reflect the bucket layout more than the data"]`)
	var b strings.Builder
	require.NoError(t, r.WriteTable(&b))
	assert.Contains(t, b.String(), "unit")
	assert.Contains(t, b.String(), "e2e_request_latency_seconds: only 1 observations")
	assert.Regexp(t, `generation_tokens\s+7\s+7\.0000/s\s+tokens`, b.String())
}
