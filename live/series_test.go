package live

import (
	"context"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
)

// seriesIn counts the series of a registry's exposition but the two of
// the recorder as a whole (overflows, calls in flight): as Prometheus
// stores them, a series per sample line.
func seriesIn(t *testing.T, reg *prometheus.Registry) int {
	_, body := scrape(t, reg)
	n := 0
	for _, line := range strings.Split(body, "\n") {
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, overflowCounter.name) ||
			strings.HasPrefix(line, inFlightGauge.name) {
			continue
		}
		n++
	}
	return n
}

// The series a label set costs, the figure Options.MaxLabelSets and the
// documentation give, counted from the exports of the Collector and the
// PrometheusSink with the default buckets. A classic histogram is a
// series per bucket (its bounds and +Inf), its _sum and its _count:
//
//	duration: 14 bounds, 15 + 2 = 17 series, for error_type "", _OTHER,
//	  timeout and cancelled                                     4 × 17 = 68
//	time to first chunk, time per output chunk, largest gap    3 × 17 = 51
//	TPOT: 13 bounds                                          14 + 2 = 16
//	token usage: 14 bounds, input and output               2 × 17 = 34
//	requests: ok, no_count, zero_token, rejected, warmup, and
//	  failed for the three error types                               8
//	output and prompt tokens, good and offered                       4
//	gap basis (token, chunk), no_count by reason (3)             2 + 3 = 5
//	                                                                  186
//
// A failure of another error type adds its duration histogram (17) and its
// requests counter (1): 18.
func TestSeriesPerLabelSet(t *testing.T) {
	e := newExporters(t, Options{})
	k := Key{Operation: "chat", Provider: "openai", Model: "m", Endpoint: "h", Port: 8080}
	e.rec.Declare(k)
	for _, reg := range []*prometheus.Registry{e.colReg, e.sinkReg} {
		assert.Equal(t, 186, seriesIn(t, reg))
	}
	e.rec.RecordResult(context.Background(), resultOf(k, 429))
	for _, reg := range []*prometheus.Registry{e.colReg, e.sinkReg} {
		assert.Equal(t, 186+18, seriesIn(t, reg))
	}
}
