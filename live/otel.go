package live

import (
	"context"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// An OTelSink records observations with OpenTelemetry metric instruments
// under the GenAI semantic conventions' names, units, attributes and
// recommended bucket boundaries, and llmmetrics.* names for what the
// conventions do not define; the same table as PrometheusSink's (an
// OpenTelemetry Prometheus exporter writes these names with dots as
// underscores and the unit as a suffix).
type OTelSink struct {
	duration, ttfc, perChunk, tpot, maxGap metric.Float64Histogram
	tokens                                 metric.Int64Histogram
	requests, outputTokens, promptTokens   metric.Int64Counter
	good, judged, basis                    metric.Int64Counter

	options sync.Map // Key → *otelOptions
}

// otelOptions are one key's attribute sets, built once.
type otelOptions struct {
	base, input, output                 []metric.RecordOption
	baseAdd, tokenBasis, chunkBasis     []metric.AddOption
	ok, zeroToken, rejected, warmup     []metric.AddOption
	failedError, failedTimeout, failedC []metric.AddOption
}

// NewOTelSink creates the instruments with meter.
func NewOTelSink(meter metric.Meter) (*OTelSink, error) {
	s := &OTelSink{}
	var err error
	fh := func(dst *metric.Float64Histogram, name, unit, desc string, buckets []float64) {
		if err == nil {
			*dst, err = meter.Float64Histogram(name, metric.WithUnit(unit), metric.WithDescription(desc), metric.WithExplicitBucketBoundaries(buckets...))
		}
	}
	ic := func(dst *metric.Int64Counter, name, unit, desc string) {
		if err == nil {
			*dst, err = meter.Int64Counter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		}
	}
	// The descriptions and buckets are the Prometheus exports' (histNames,
	// histBounds); the names are the conventions' dotted ones.
	fh(&s.duration, "gen_ai.client.operation.duration", "s", histNames[histDuration][1], histBounds[histDuration])
	fh(&s.ttfc, "gen_ai.client.operation.time_to_first_chunk", "s", histNames[histTTFC][1], histBounds[histTTFC])
	fh(&s.perChunk, "gen_ai.client.operation.time_per_output_chunk", "s", histNames[histPerChunk][1], histBounds[histPerChunk])
	fh(&s.tpot, "llmmetrics.time_per_output_token", "s", histNames[histTPOT][1], histBounds[histTPOT])
	fh(&s.maxGap, "llmmetrics.max_gap", "s", histNames[histMaxGap][1], histBounds[histMaxGap])
	if err == nil {
		bounds := make([]float64, len(TokenBuckets))
		copy(bounds, TokenBuckets)
		s.tokens, err = meter.Int64Histogram("gen_ai.client.token.usage", metric.WithUnit("{token}"),
			metric.WithDescription(histNames[histInput][1]), metric.WithExplicitBucketBoundaries(bounds...))
	}
	ic(&s.requests, "llmmetrics.requests", "{request}", requestsCounter.help)
	ic(&s.outputTokens, "llmmetrics.output_tokens", "{token}", outputTokensCounter.help)
	ic(&s.promptTokens, "llmmetrics.prompt_tokens", "{token}", promptTokensCounter.help)
	ic(&s.good, "llmmetrics.goodput.good", "{request}", goodCounter.help)
	ic(&s.judged, "llmmetrics.goodput.offered", "{request}", judgedCounter.help)
	ic(&s.basis, "llmmetrics.gap_basis.requests", "{request}", basisCounter.help)
	if err != nil {
		return nil, err
	}
	return s, nil
}

func (s *OTelSink) optionsOf(k Key) *otelOptions {
	if o, ok := s.options.Load(k); ok {
		return o.(*otelOptions)
	}
	base := []attribute.KeyValue{
		attribute.String("gen_ai.operation.name", k.Operation), attribute.String("gen_ai.provider.name", k.Provider),
		attribute.String("gen_ai.request.model", k.Model), attribute.String("server.address", k.Endpoint),
	}
	set := func(extra ...attribute.KeyValue) attribute.Set {
		return attribute.NewSet(append(append([]attribute.KeyValue{}, base...), extra...)...)
	}
	rec := func(a attribute.Set) []metric.RecordOption { return []metric.RecordOption{metric.WithAttributeSet(a)} }
	add := func(a attribute.Set) []metric.AddOption { return []metric.AddOption{metric.WithAttributeSet(a)} }
	outcome := func(o, errType string) []metric.AddOption {
		extra := []attribute.KeyValue{attribute.String("llmmetrics.outcome", o)}
		if errType != "" {
			extra = append(extra, attribute.String("error.type", errType))
		}
		return add(set(extra...))
	}
	o := &otelOptions{
		base: rec(set()), baseAdd: add(set()),
		input:      rec(set(attribute.String("gen_ai.token.type", "input"))),
		output:     rec(set(attribute.String("gen_ai.token.type", "output"))),
		tokenBasis: add(set(attribute.String("llmmetrics.basis", "token"))),
		chunkBasis: add(set(attribute.String("llmmetrics.basis", "chunk"))),
		ok:         outcome("ok", ""), zeroToken: outcome("zero_token", ""), rejected: outcome("rejected", ""), warmup: outcome("warmup", ""),
		failedError: outcome("failed", "error"), failedTimeout: outcome("failed", "timeout"), failedC: outcome("failed", "cancelled"),
	}
	got, _ := s.options.LoadOrStore(k, o)
	return got.(*otelOptions)
}

// Observe records one observation.
func (s *OTelSink) Observe(k Key, o Observation) {
	ctx := context.Background()
	opts := s.optionsOf(k)
	s.requests.Add(ctx, 1, opts.outcome(&o)...)
	if o.Judged {
		s.judged.Add(ctx, 1, opts.baseAdd...)
		if o.Good {
			s.good.Add(ctx, 1, opts.baseAdd...)
		}
	}
	if o.Outcome != OutcomeOK {
		return
	}
	s.duration.Record(ctx, o.E2E.Seconds(), opts.base...)
	s.ttfc.Record(ctx, o.TTFT.Seconds(), opts.base...)
	s.tokens.Record(ctx, int64(o.OutputTokens), opts.output...)
	s.outputTokens.Add(ctx, int64(o.OutputTokens), opts.baseAdd...)
	if o.PromptTokens > 0 {
		s.tokens.Record(ctx, int64(o.PromptTokens), opts.input...)
		s.promptTokens.Add(ctx, int64(o.PromptTokens), opts.baseAdd...)
	}
	if o.HasTPOT {
		s.tpot.Record(ctx, o.TPOT.Seconds(), opts.base...)
	}
	if o.HasMaxGap {
		s.maxGap.Record(ctx, o.MaxGap.Seconds(), opts.base...)
		for i := 1; i < len(o.Chunks); i++ {
			s.perChunk.Record(ctx, (o.Chunks[i] - o.Chunks[i-1]).Seconds(), opts.base...)
		}
		if o.TokenBasis {
			s.basis.Add(ctx, 1, opts.tokenBasis...)
		} else {
			s.basis.Add(ctx, 1, opts.chunkBasis...)
		}
	}
}

func (o *otelOptions) outcome(ob *Observation) []metric.AddOption {
	switch ob.Outcome {
	case OutcomeOK:
		return o.ok
	case OutcomeZeroToken:
		return o.zeroToken
	case OutcomeRejected:
		return o.rejected
	case OutcomeWarmup:
		return o.warmup
	}
	switch ob.ErrorType {
	case "timeout":
		return o.failedTimeout
	case "cancelled":
		return o.failedC
	}
	return o.failedError
}
