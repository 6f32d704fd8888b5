package live

import (
	"context"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/trace"
)

// A PrometheusSink exports observations as Prometheus metrics under the
// GenAI names where the conventions define one, and llmmetrics_* names
// for what they do not (see the package documentation for the table),
// with the labels the Collector and the OTelSink use. Histograms have the
// conventions' classic buckets (or PrometheusOptions.Buckets), and native
// (sparse) buckets too when NativeFactor is set. An observation recorded
// with a context that carries a sampled OpenTelemetry span gets its trace
// id as an exemplar on the duration and time-to-first-chunk histograms.
type PrometheusSink struct {
	duration, ttfc, perChunk, tokens *prometheus.HistogramVec
	tpot, maxGap                     *prometheus.HistogramVec
	requests                         *prometheus.CounterVec
	outputTokens, promptTokens       *prometheus.CounterVec
	good, judged                     *prometheus.CounterVec
	basis, noCount                   *prometheus.CounterVec
	overflow                         prometheus.Counter
	inFlight                         prometheus.Gauge

	children sync.Map // Key → *promChildren
}

// PrometheusSink has every optional method of a Sink.
var (
	_ Sink          = (*PrometheusSink)(nil)
	_ Preparer      = (*PrometheusSink)(nil)
	_ Forgetter     = (*PrometheusSink)(nil)
	_ InFlightAdder = (*PrometheusSink)(nil)
)

// promChildren are one key's metrics, looked up once.
type promChildren struct {
	duration, ttfc, perChunk, input, output, tpot, maxGap prometheus.Observer
	ok, noCountReq, zeroToken, rejected, warmup           prometheus.Counter
	outputTokens, promptTokens, good, judged              prometheus.Counter
	tokenBasis, chunkBasis                                prometheus.Counter
	noCount                                               [len(reasons)]prometheus.Counter
	fails                                                 sync.Map // error type → *promFailure
}

// promFailure are one key's metrics of one error type.
type promFailure struct {
	count    prometheus.Counter
	duration prometheus.Observer
}

// PrometheusOptions configure a PrometheusSink. NativeFactor, when above
// 1, adds native histograms of that bucket growth factor (1.1 is
// Prometheus' usual choice) beside the classic buckets, whose bounds are
// Buckets (the conventions' when zero).
type PrometheusOptions struct {
	NativeFactor float64
	Buckets      Buckets
}

// NewPrometheusSink creates the metrics and registers them with reg.
func NewPrometheusSink(reg prometheus.Registerer, opt PrometheusOptions) (*PrometheusSink, error) {
	bounds, err := opt.Buckets.bounds()
	if err != nil {
		return nil, err
	}
	keyLabels := promNames(keyAttrs...)
	hist := func(h int, extra ...string) *prometheus.HistogramVec {
		return prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: histNames[h][0], Help: histNames[h][1], Buckets: bounds[h],
			NativeHistogramBucketFactor: opt.NativeFactor}, append(append([]string{}, keyLabels...), extra...))
	}
	counter := func(m promMetric) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: m.name, Help: m.help}, append(append([]string{}, keyLabels...), m.labels...))
	}
	p := &PrometheusSink{
		duration: hist(histDuration, promName(attrErrorType)), ttfc: hist(histTTFC), perChunk: hist(histPerChunk),
		tokens: hist(histInput, promName(attrTokenType)), tpot: hist(histTPOT), maxGap: hist(histMaxGap),
		requests: counter(requestsCounter), outputTokens: counter(outputTokensCounter), promptTokens: counter(promptTokensCounter),
		good: counter(goodCounter), judged: counter(judgedCounter), basis: counter(basisCounter), noCount: counter(noCountCounter),
		overflow: prometheus.NewCounter(prometheus.CounterOpts{Name: overflowCounter.name, Help: overflowCounter.help}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{Name: inFlightGauge.name, Help: inFlightGauge.help}),
	}
	for _, c := range []prometheus.Collector{p.duration, p.ttfc, p.perChunk, p.tokens, p.tpot, p.maxGap, p.requests,
		p.outputTokens, p.promptTokens, p.good, p.judged, p.basis, p.noCount, p.overflow, p.inFlight} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// Prepare creates a key's series, so that they are exported (at zero)
// before its first observation. Recorder.Declare calls it.
func (p *PrometheusSink) Prepare(k Key) { p.childrenOf(k.clean()) }

// Forget deletes a key's series. Recorder.Remove calls it.
func (p *PrometheusSink) Forget(k Key) {
	k = k.clean()
	p.children.Delete(k)
	labels := prometheus.Labels{}
	for i, v := range k.labels() {
		labels[promName(keyAttrs[i])] = v
	}
	for _, v := range []interface{ DeletePartialMatch(prometheus.Labels) int }{p.duration, p.ttfc, p.perChunk, p.tokens, p.tpot,
		p.maxGap, p.requests, p.outputTokens, p.promptTokens, p.good, p.judged, p.basis, p.noCount} {
		v.DeletePartialMatch(labels)
	}
}

// AddInFlight adds d to the gauge of calls in flight.
func (p *PrometheusSink) AddInFlight(_ context.Context, d int64) { p.inFlight.Add(float64(d)) }

// childrenOf returns the children of a clean key.
func (p *PrometheusSink) childrenOf(k Key) *promChildren {
	if c, ok := p.children.Load(k); ok {
		return c.(*promChildren)
	}
	l := k.labels()
	with := func(extra ...string) []string { return append(append([]string{}, l...), extra...) }
	c := &promChildren{
		duration: p.duration.WithLabelValues(with("")...), ttfc: p.ttfc.WithLabelValues(l...), perChunk: p.perChunk.WithLabelValues(l...),
		input: p.tokens.WithLabelValues(with("input")...), output: p.tokens.WithLabelValues(with("output")...),
		tpot: p.tpot.WithLabelValues(l...), maxGap: p.maxGap.WithLabelValues(l...),
		outputTokens: p.outputTokens.WithLabelValues(l...), promptTokens: p.promptTokens.WithLabelValues(l...),
		good: p.good.WithLabelValues(l...), judged: p.judged.WithLabelValues(l...),
		tokenBasis: p.basis.WithLabelValues(with("token")...), chunkBasis: p.basis.WithLabelValues(with("chunk")...),
		ok: p.requests.WithLabelValues(with(string(OutcomeOK), "")...), noCountReq: p.requests.WithLabelValues(with(string(OutcomeNoCount), "")...),
		zeroToken: p.requests.WithLabelValues(with(string(OutcomeZeroToken), "")...),
		rejected:  p.requests.WithLabelValues(with(string(OutcomeRejected), "")...), warmup: p.requests.WithLabelValues(with(string(OutcomeWarmup), "")...),
	}
	for i, r := range reasons {
		c.noCount[i] = p.noCount.WithLabelValues(with(r)...)
	}
	got, loaded := p.children.LoadOrStore(k, c)
	c = got.(*promChildren)
	if !loaded {
		for _, t := range statusErrorTypes {
			p.failureOf(c, k, t)
		}
	}
	return c
}

// failureOf returns a key's metrics of error type t.
func (p *PrometheusSink) failureOf(c *promChildren, k Key, t string) *promFailure {
	if f, ok := c.fails.Load(t); ok {
		return f.(*promFailure)
	}
	l := append(k.labels(), t)
	f := &promFailure{duration: p.duration.WithLabelValues(l...),
		count: p.requests.WithLabelValues(append(k.labels(), string(OutcomeFailed), t)...)}
	got, _ := c.fails.LoadOrStore(t, f)
	return got.(*promFailure)
}

// observeExemplar records v, with the context's trace id as an exemplar when it
// carries a sampled span.
func observeExemplar(ctx context.Context, o prometheus.Observer, v float64) {
	if sc := trace.SpanContextFromContext(ctx); sc.IsSampled() {
		if eo, ok := o.(prometheus.ExemplarObserver); ok {
			eo.ObserveWithExemplar(v, prometheus.Labels{"trace_id": sc.TraceID().String()})
			return
		}
	}
	o.Observe(v)
}

// Observe records one observation. The Recorder hands it a clean key; a
// caller's own key is cleaned.
func (p *PrometheusSink) Observe(ctx context.Context, k Key, o Observation) {
	k = k.clean()
	c := p.childrenOf(k)
	if o.Overflow {
		p.overflow.Inc()
	}
	if o.Judged {
		c.judged.Inc()
		if o.Good {
			c.good.Inc()
		}
	}
	switch o.Outcome {
	case OutcomeOK:
		c.ok.Inc()
	case OutcomeNoCount:
		c.noCountReq.Inc()
		if i := int(o.Count) - 1; i >= 0 && i < len(reasons) {
			c.noCount[i].Inc()
		}
	case OutcomeFailed:
		f := p.failureOf(c, k, o.ErrorType)
		f.count.Inc()
		if o.HasDuration {
			observeExemplar(ctx, f.duration, o.Duration.Seconds())
		}
		return
	case OutcomeZeroToken:
		c.zeroToken.Inc()
		return
	case OutcomeRejected:
		c.rejected.Inc()
		return
	case OutcomeWarmup:
		c.warmup.Inc()
		return
	}
	observeExemplar(ctx, c.duration, o.E2E.Seconds())
	if o.HasTTFT {
		observeExemplar(ctx, c.ttfc, o.TTFT.Seconds())
	}
	if o.Outcome == OutcomeOK {
		c.output.Observe(float64(o.OutputTokens))
		c.outputTokens.Add(float64(o.OutputTokens))
	}
	if o.PromptTokens > 0 {
		c.input.Observe(float64(o.PromptTokens))
		c.promptTokens.Add(float64(o.PromptTokens))
	}
	if o.HasTPOT {
		c.tpot.Observe(o.TPOT.Seconds())
	}
	if o.HasMaxGap {
		c.maxGap.Observe(o.MaxGap.Seconds())
		for i := 1; i < len(o.Chunks); i++ {
			c.perChunk.Observe((o.Chunks[i] - o.Chunks[i-1]).Seconds())
		}
		if o.TokenBasis {
			c.tokenBasis.Inc()
		} else {
			c.chunkBasis.Inc()
		}
	}
}
