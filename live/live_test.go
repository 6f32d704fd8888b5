package live

import (
	"context"
	"fmt"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/internal/doccheck"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// Every exported function and method has a doc comment and an Example.
func TestEveryFunctionHasExample(t *testing.T) { doccheck.Test(t, ".") }

const ms = time.Millisecond

var chat = Key{Operation: "chat", Provider: "openai", Model: "m", Endpoint: "127.0.0.1:8000"}

// mixed is one request of each outcome, plus ok ones of varied speed.
func mixed(n int) []llmmetrics.Record {
	recs := []llmmetrics.Record{
		{ID: "fail", Status: llmmetrics.StatusError, Message: "boom"},
		{ID: "late", Status: llmmetrics.StatusTimeout},
		{ID: "zero", FirstText: 10 * ms, LastText: 10 * ms},
		{ID: "warm", Warmup: true, Chunks: []time.Duration{ms}, CompletionTokens: 1},
		{ID: "bad", Chunks: []time.Duration{20 * ms, 10 * ms}, CompletionTokens: 2}, // arrivals go back: rejected
	}
	for i := range n {
		ttft := time.Duration(50+i*7%400) * ms
		var chunks []time.Duration
		for k := range 5 {
			chunks = append(chunks, ttft+time.Duration(k*(10+i%30))*ms)
		}
		recs = append(recs, llmmetrics.Record{ID: fmt.Sprint(i), Sent: time.Duration(i) * 10 * ms, Chunks: chunks,
			CompletionTokens: 5 + i%3*5, PromptTokens: 100 + i})
	}
	return recs
}

// The recorder's accounting and goodput agree with llmmetrics' Summarize
// on the same records, and its sketches' quantiles lie within their
// relative accuracy of the exact nearest-rank ones.
func TestRecorderAgreesWithSummarize(t *testing.T) {
	slo := llmmetrics.SLO{TTFT: 300 * ms, TPOT: 30 * ms}
	rec, err := NewRecorder(Options{SLO: &slo})
	require.NoError(t, err)
	recs := mixed(1000)
	for i := range recs {
		rec.Record(chat, &recs[i])
	}
	snaps := rec.Snapshots(false)
	require.Len(t, snaps, 1)
	s := snaps[0]
	want, err := llmmetrics.Summarize(recs, llmmetrics.Options{SLO: &slo, Lenient: true,
		Percentiles: []llmmetrics.Percentile{llmmetrics.MustPercentile(50), llmmetrics.MustPercentile(99)}})
	require.NoError(t, err)
	a := want.Requests
	c := s.Counts
	assert.Equal(t, [9]int64{int64(a.Offered), int64(a.OK), int64(a.ZeroToken), int64(a.Failed), int64(a.Rejected), int64(a.Warmup),
		int64(a.Errors), int64(a.Timeouts), int64(a.OneToken)},
		[9]int64{c.Offered, c.OK, c.ZeroToken, c.Failed, c.Rejected, c.Warmup, c.Errors, c.Timeouts, c.OneToken})
	assert.Equal(t, c.Offered, c.OK+c.ZeroToken+c.Failed+c.Rejected+c.Warmup)
	att, ok := c.Attainment()
	require.True(t, ok)
	assert.Equal(t, want.Goodput.Attainment, att)
	assert.Equal(t, want.Throughput.OutputTokens, c.OutputTokens)

	for _, m := range []struct {
		name string
		d    Dist
		want *llmmetrics.Distribution
	}{{"ttft", s.TTFT, want.TTFT}, {"tpot", s.TPOT, &want.TPOT.Distribution}, {"e2e", s.E2E, want.E2E}} {
		assert.Equal(t, int64(m.want.N), m.d.Count(), m.name)
		for i, q := range []float64{0.5, 0.99} {
			got, err := m.d.Quantile(q)
			require.NoError(t, err)
			exact := m.want.Points[i].Value
			assert.InDelta(t, float64(exact), float64(got), 0.01*float64(exact)+1, "%s q=%v", m.name, q)
		}
		mean, err := m.d.Mean()
		require.NoError(t, err)
		assert.Equal(t, m.want.Mean, mean, "%s mean: the exact sum is kept beside the sketch", m.name)
	}
}

func TestSlidingWindow(t *testing.T) {
	now := time.Unix(1000, 0)
	clock := func() time.Time { return now }
	rec, err := NewRecorder(Options{Window: time.Minute, Slots: 6, Now: clock})
	require.NoError(t, err)
	r := llmmetrics.Record{ID: "a", FirstText: 100 * ms, LastText: 200 * ms, CompletionTokens: 3}
	rec.Record(chat, &r)
	now = now.Add(30 * time.Second)
	rec.Record(chat, &r)
	rec.Record(chat, &r)
	w := rec.Snapshots(true)[0]
	assert.Equal(t, int64(3), w.Counts.OK, "both within the last minute")
	now = now.Add(40 * time.Second) // the first is now 70 s old
	w = rec.Snapshots(true)[0]
	assert.Equal(t, int64(2), w.Counts.OK)
	assert.Equal(t, time.Minute, w.Window)
	now = now.Add(10 * time.Minute) // idle: the window is empty, the cumulative figures stay
	assert.Zero(t, rec.Snapshots(true)[0].Counts.Offered)
	assert.Equal(t, int64(3), rec.Snapshots(false)[0].Counts.OK)
	rec.Record(chat, &r)
	assert.Equal(t, int64(1), rec.Snapshots(true)[0].Counts.OK)
}

// Replicas merge: two recorders' snapshots merged give the counts and the
// quantiles of one recorder that saw every record.
func TestMergeReplicas(t *testing.T) {
	recs := mixed(400)
	one, _ := NewRecorder(Options{})
	a, _ := NewRecorder(Options{})
	b, _ := NewRecorder(Options{})
	for i := range recs {
		one.Record(chat, &recs[i])
		if i%2 == 0 {
			a.Record(chat, &recs[i])
		} else {
			b.Record(chat, &recs[i])
		}
	}
	merged := Merge(a.Snapshots(false)[0], b.Snapshots(false)[0])
	all := one.Snapshots(false)[0]
	assert.Equal(t, all.Counts, merged.Counts)
	for _, q := range []float64{0, 0.5, 0.9, 0.99, 1} {
		x, _ := all.TTFT.Quantile(q)
		y, _ := merged.TTFT.Quantile(q)
		assert.Equal(t, x, y, "q=%v", q)
		x, _ = all.Gap.Quantile(q)
		y, _ = merged.Gap.Quantile(q)
		assert.Equal(t, x, y, "gap q=%v", q)
	}
}

func TestKeepRecordsAndErrors(t *testing.T) {
	rec, _ := NewRecorder(Options{KeepRecords: true})
	recs := mixed(10)
	for i := range recs {
		rec.Record(chat, &recs[i])
	}
	s, err := rec.Summary(chat, llmmetrics.Options{Lenient: true})
	require.NoError(t, err)
	assert.Equal(t, len(recs), s.Requests.Offered)
	_, err = rec.Summary(Key{Model: "other"}, llmmetrics.Options{})
	assert.ErrorIs(t, err, llmmetrics.ErrNoRecords)
	plain, _ := NewRecorder(Options{})
	_, err = plain.Summary(chat, llmmetrics.Options{})
	assert.ErrorIs(t, err, ErrNotKept)

	for _, o := range []Options{{Window: -1}, {Slots: -1}, {Accuracy: 2}, {SLO: &llmmetrics.SLO{TTFT: -1}}} {
		_, err := NewRecorder(o)
		assert.Error(t, err, "%+v", o)
	}
	var d Dist
	_, err = d.Quantile(0.5)
	assert.ErrorIs(t, err, llmmetrics.ErrNoSamples)
}

// Many goroutines record at once; every record is counted once.
func TestConcurrentRecording(t *testing.T) {
	rec, _ := NewRecorder(Options{})
	recs := mixed(100)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range recs {
				rec.Record(Key{Model: fmt.Sprint(g % 2)}, &recs[i])
			}
		}()
	}
	wg.Wait()
	var total int64
	for _, s := range rec.Snapshots(false) {
		total += s.Counts.Offered
	}
	assert.Equal(t, int64(8*len(recs)), total)
}

func metricFamily(t *testing.T, reg *prometheus.Registry, name string) *dto.MetricFamily {
	mfs, err := reg.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		if mf.GetName() == name {
			return mf
		}
	}
	t.Fatalf("no %s", name)
	return nil
}

// Three requests by hand: ok with chunks at 100, 130 and 190 ms (TTFT
// 100 ms, gaps 30 and 60 ms, TPOT 45 ms, 3 tokens, 20 prompt tokens), a
// timeout, and a warm-up request.
func TestPrometheusSink(t *testing.T) {
	reg := prometheus.NewRegistry()
	sink, err := NewPrometheusSink(reg, PrometheusOptions{})
	require.NoError(t, err)
	slo := llmmetrics.SLO{TTFT: 150 * ms}
	rec, _ := NewRecorder(Options{SLO: &slo, Sinks: []Sink{sink}})
	recs := []llmmetrics.Record{
		{ID: "a", Chunks: []time.Duration{100 * ms, 130 * ms, 190 * ms}, CompletionTokens: 3, PromptTokens: 20},
		{ID: "b", Status: llmmetrics.StatusTimeout},
		{ID: "w", Warmup: true, Chunks: []time.Duration{ms}, CompletionTokens: 1},
	}
	for i := range recs {
		rec.Record(chat, &recs[i])
	}
	h := metricFamily(t, reg, "gen_ai_client_operation_time_to_first_chunk_seconds").GetMetric()[0].GetHistogram()
	assert.Equal(t, uint64(1), h.GetSampleCount())
	assert.InDelta(t, 0.1, h.GetSampleSum(), 1e-12)
	// 0.1 s is above the 0.08 bound and within 0.16.
	for _, b := range h.GetBucket() {
		want := uint64(0)
		if b.GetUpperBound() >= 0.16 {
			want = 1
		}
		assert.Equal(t, want, b.GetCumulativeCount(), "le=%v", b.GetUpperBound())
	}
	gaps := metricFamily(t, reg, "gen_ai_client_operation_time_per_output_chunk_seconds").GetMetric()[0].GetHistogram()
	assert.Equal(t, uint64(2), gaps.GetSampleCount())
	assert.InDelta(t, 0.09, gaps.GetSampleSum(), 1e-12)
	tpot := metricFamily(t, reg, "llmmetrics_time_per_output_token_seconds").GetMetric()[0].GetHistogram()
	assert.InDelta(t, 0.045, tpot.GetSampleSum(), 1e-12)
	byOutcome := map[string]float64{}
	for _, m := range metricFamily(t, reg, "llmmetrics_requests_total").GetMetric() {
		var outcome, errType string
		for _, l := range m.GetLabel() {
			switch l.GetName() {
			case "llmmetrics_outcome":
				outcome = l.GetValue()
			case "error_type":
				errType = l.GetValue()
			}
			if l.GetName() == "gen_ai_request_model" {
				assert.Equal(t, "m", l.GetValue())
			}
		}
		byOutcome[outcome+"/"+errType] += m.GetCounter().GetValue()
	}
	assert.Equal(t, 1.0, byOutcome["ok/"])
	assert.Equal(t, 1.0, byOutcome["failed/timeout"])
	assert.Equal(t, 1.0, byOutcome["warmup/"])
	assert.Equal(t, 1.0, metricFamily(t, reg, "llmmetrics_goodput_good_total").GetMetric()[0].GetCounter().GetValue())
	assert.Equal(t, 2.0, metricFamily(t, reg, "llmmetrics_goodput_offered_total").GetMetric()[0].GetCounter().GetValue(), "the timeout counts; the warm-up does not")
	assert.Equal(t, 3.0, metricFamily(t, reg, "llmmetrics_output_tokens_total").GetMetric()[0].GetCounter().GetValue())
	assert.Equal(t, 20.0, metricFamily(t, reg, "llmmetrics_prompt_tokens_total").GetMetric()[0].GetCounter().GetValue())

	native := prometheus.NewRegistry()
	nsink, err := NewPrometheusSink(native, PrometheusOptions{NativeFactor: 1.1})
	require.NoError(t, err)
	nsink.Observe(context.Background(), chat, Observation{Outcome: OutcomeOK, TTFT: 100 * ms, E2E: 200 * ms, OutputTokens: 1, HasTTFT: true})
	nh := metricFamily(t, native, "gen_ai_client_operation_time_to_first_chunk_seconds").GetMetric()[0].GetHistogram()
	assert.NotZero(t, nh.GetSchema()+int32(len(nh.GetPositiveSpan())), "native buckets beside the classic ones")
	assert.NotEmpty(t, nh.GetBucket())
}

// The OpenTelemetry instruments carry the GenAI names, units, attributes
// and recommended buckets.
func TestOTelSink(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	provider := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	sink, err := NewOTelSink(provider.Meter("llmmetrics"), OTelOptions{})
	require.NoError(t, err)
	rec, _ := NewRecorder(Options{Sinks: []Sink{sink}})
	r := llmmetrics.Record{ID: "a", Chunks: []time.Duration{100 * ms, 130 * ms, 190 * ms}, CompletionTokens: 3, PromptTokens: 20}
	rec.Record(chat, &r)
	var rm metricdata.ResourceMetrics
	require.NoError(t, reader.Collect(context.Background(), &rm))
	got := map[string]metricdata.Metrics{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			got[m.Name] = m
		}
	}
	ttfc := got["gen_ai.client.operation.time_to_first_chunk"]
	assert.Equal(t, "s", ttfc.Unit)
	hist := ttfc.Data.(metricdata.Histogram[float64])
	require.Len(t, hist.DataPoints, 1)
	dp := hist.DataPoints[0]
	assert.Equal(t, DefaultBuckets().Duration, dp.Bounds)
	assert.Equal(t, uint64(1), dp.Count)
	v, ok := dp.Attributes.Value("gen_ai.operation.name")
	assert.True(t, ok)
	assert.Equal(t, "chat", v.AsString())
	tokens := got["gen_ai.client.token.usage"]
	assert.Equal(t, "{token}", tokens.Unit)
	assert.Len(t, tokens.Data.(metricdata.Histogram[int64]).DataPoints, 2, "input and output")
	for _, name := range []string{"gen_ai.client.operation.duration", "gen_ai.client.operation.time_per_output_chunk",
		"llmmetrics.time_per_output_token", "llmmetrics.max_gap", "llmmetrics.requests", "llmmetrics.output_tokens", "llmmetrics.prompt_tokens"} {
		assert.Contains(t, got, name)
	}
	assert.False(t, math.IsNaN(dp.Sum))
}

// The Collector exports what PrometheusSink exports: the same families,
// series, counts and buckets, for the same records.
func TestCollectorMatchesSink(t *testing.T) {
	sinkReg, colReg := prometheus.NewRegistry(), prometheus.NewRegistry()
	sink, err := NewPrometheusSink(sinkReg, PrometheusOptions{})
	require.NoError(t, err)
	slo := llmmetrics.SLO{TTFT: 300 * ms}
	rec, _ := NewRecorder(Options{SLO: &slo, Sinks: []Sink{sink}})
	require.NoError(t, colReg.Register(NewCollector(rec)))
	recs := mixed(300)
	for i := range recs {
		rec.Record(chat, &recs[i])
	}
	a, err := sinkReg.Gather()
	require.NoError(t, err)
	b, err := colReg.Gather()
	require.NoError(t, err)
	require.Equal(t, len(a), len(b))
	for i := range a {
		assert.Equal(t, a[i].GetName(), b[i].GetName())
		assert.Equal(t, a[i].GetType(), b[i].GetType(), a[i].GetName())
		require.Equal(t, len(a[i].GetMetric()), len(b[i].GetMetric()), a[i].GetName())
		for k, m := range a[i].GetMetric() {
			n := b[i].GetMetric()[k]
			assert.Equal(t, fmt.Sprint(m.GetLabel()), fmt.Sprint(n.GetLabel()), a[i].GetName())
			if m.GetCounter() != nil {
				assert.Equal(t, m.GetCounter().GetValue(), n.GetCounter().GetValue(), "%s %v", a[i].GetName(), m.GetLabel())
			}
			if h := m.GetHistogram(); h != nil {
				g := n.GetHistogram()
				assert.Equal(t, h.GetSampleCount(), g.GetSampleCount(), a[i].GetName())
				assert.InDelta(t, h.GetSampleSum(), g.GetSampleSum(), 1e-9*max(1, h.GetSampleSum()), a[i].GetName())
				for j, bk := range h.GetBucket() {
					assert.Equal(t, bk.GetUpperBound(), g.GetBucket()[j].GetUpperBound())
					assert.Equal(t, bk.GetCumulativeCount(), g.GetBucket()[j].GetCumulativeCount(), "%s le=%v", a[i].GetName(), bk.GetUpperBound())
				}
			}
		}
	}
}
