package live

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// The bucket boundaries the GenAI semantic conventions recommend, in
// seconds (durations) and tokens.
var (
	// DurationBuckets are gen_ai.client.operation.duration's, also used
	// for time to first chunk and time per output chunk.
	DurationBuckets = []float64{0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92}
	// TPOTBuckets are gen_ai.server.time_per_output_token's.
	TPOTBuckets = []float64{0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 2.5}
	// TokenBuckets are gen_ai.client.token.usage's: 1, 4, 16, … 4^13.
	TokenBuckets = prometheus.ExponentialBuckets(1, 4, 14)
)

// GenAI label names, as the Prometheus exporters of OpenTelemetry write
// the attributes (dots become underscores).
var genaiLabels = []string{"gen_ai_operation_name", "gen_ai_provider_name", "gen_ai_request_model", "server_address"}

// A PrometheusSink exports observations as Prometheus metrics under the
// GenAI names where the conventions define one, and llmmetrics_* names
// for what they do not (see the package documentation for the table).
// Histograms have the conventions' classic buckets, and native (sparse)
// buckets too when NativeFactor is set.
type PrometheusSink struct {
	duration, ttfc, perChunk, tokens *prometheus.HistogramVec
	tpot, maxGap                     *prometheus.HistogramVec
	requests                         *prometheus.CounterVec
	outputTokens, promptTokens       *prometheus.CounterVec
	good, judged                     *prometheus.CounterVec
	basis                            *prometheus.CounterVec

	children sync.Map // Key → *promChildren
}

// promChildren are one key's metrics, looked up once.
type promChildren struct {
	duration, ttfc, perChunk, input, output, tpot, maxGap prometheus.Observer
	ok, zeroToken, rejected, warmup                       prometheus.Counter
	failedError, failedTimeout, failedCancelled           prometheus.Counter
	outputTokens, promptTokens, good, judged              prometheus.Counter
	tokenBasis, chunkBasis                                prometheus.Counter
}

// PrometheusOptions configure a PrometheusSink. NativeFactor, when above
// 1, adds native histograms of that bucket growth factor (1.1 is
// Prometheus' usual choice) beside the classic buckets.
type PrometheusOptions struct {
	NativeFactor float64
}

// NewPrometheusSink creates the metrics and registers them with reg.
func NewPrometheusSink(reg prometheus.Registerer, opt PrometheusOptions) (*PrometheusSink, error) {
	hist := func(h int, extra ...string) *prometheus.HistogramVec {
		return prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: histNames[h][0], Help: histNames[h][1], Buckets: histBounds[h],
			NativeHistogramBucketFactor: opt.NativeFactor}, append(append([]string{}, genaiLabels...), extra...))
	}
	counter := func(m promCounter) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: m.name, Help: m.help}, append(append([]string{}, genaiLabels...), m.labels...))
	}
	p := &PrometheusSink{
		duration: hist(histDuration), ttfc: hist(histTTFC), perChunk: hist(histPerChunk), tokens: hist(histInput, "gen_ai_token_type"),
		tpot: hist(histTPOT), maxGap: hist(histMaxGap),
		requests: counter(requestsCounter), outputTokens: counter(outputTokensCounter), promptTokens: counter(promptTokensCounter),
		good: counter(goodCounter), judged: counter(judgedCounter), basis: counter(basisCounter),
	}
	for _, c := range []prometheus.Collector{p.duration, p.ttfc, p.perChunk, p.tokens, p.tpot, p.maxGap, p.requests,
		p.outputTokens, p.promptTokens, p.good, p.judged, p.basis} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// Prepare creates a key's series, so that they are exported (at zero)
// before its first observation.
func (p *PrometheusSink) Prepare(k Key) { p.childrenOf(k) }

func (p *PrometheusSink) childrenOf(k Key) *promChildren {
	if c, ok := p.children.Load(k); ok {
		return c.(*promChildren)
	}
	l := []string{k.Operation, k.Provider, k.Model, k.Endpoint}
	with := func(extra ...string) []string { return append(append([]string{}, l...), extra...) }
	c := &promChildren{
		duration: p.duration.WithLabelValues(l...), ttfc: p.ttfc.WithLabelValues(l...), perChunk: p.perChunk.WithLabelValues(l...),
		input: p.tokens.WithLabelValues(with("input")...), output: p.tokens.WithLabelValues(with("output")...),
		tpot: p.tpot.WithLabelValues(l...), maxGap: p.maxGap.WithLabelValues(l...),
		outputTokens: p.outputTokens.WithLabelValues(l...), promptTokens: p.promptTokens.WithLabelValues(l...),
		good: p.good.WithLabelValues(l...), judged: p.judged.WithLabelValues(l...),
		tokenBasis: p.basis.WithLabelValues(with("token")...), chunkBasis: p.basis.WithLabelValues(with("chunk")...),
		ok: p.requests.WithLabelValues(with("ok", "")...), zeroToken: p.requests.WithLabelValues(with("zero_token", "")...),
		rejected: p.requests.WithLabelValues(with("rejected", "")...), warmup: p.requests.WithLabelValues(with("warmup", "")...),
		failedError:     p.requests.WithLabelValues(with("failed", "error")...),
		failedTimeout:   p.requests.WithLabelValues(with("failed", "timeout")...),
		failedCancelled: p.requests.WithLabelValues(with("failed", "cancelled")...),
	}
	got, _ := p.children.LoadOrStore(k, c)
	return got.(*promChildren)
}

// Observe records one observation.
func (p *PrometheusSink) Observe(k Key, o Observation) {
	c := p.childrenOf(k)
	c.outcomeCounter(&o).Inc()
	if o.Judged {
		c.judged.Inc()
		if o.Good {
			c.good.Inc()
		}
	}
	if o.Outcome != OutcomeOK {
		return
	}
	c.duration.Observe(o.E2E.Seconds())
	c.ttfc.Observe(o.TTFT.Seconds())
	c.output.Observe(float64(o.OutputTokens))
	c.outputTokens.Add(float64(o.OutputTokens))
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

// outcomeCounter returns the requests counter of an observation's outcome.
func (c *promChildren) outcomeCounter(o *Observation) prometheus.Counter {
	switch o.Outcome {
	case OutcomeOK:
		return c.ok
	case OutcomeZeroToken:
		return c.zeroToken
	case OutcomeRejected:
		return c.rejected
	case OutcomeWarmup:
		return c.warmup
	}
	switch o.ErrorType {
	case "timeout":
		return c.failedTimeout
	case "cancelled":
		return c.failedCancelled
	}
	return c.failedError
}
