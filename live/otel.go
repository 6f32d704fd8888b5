package live

import (
	"context"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// An OTelSink records observations with OpenTelemetry metric instruments
// under the GenAI semantic conventions' names, units, attributes and
// recommended bucket boundaries, and llmmetrics.* names for what the
// conventions do not define: the same table, and the same attribute names,
// as PrometheusSink's (an OpenTelemetry Prometheus exporter writes these
// names with dots as underscores, the unit as a suffix and counters with
// _total, so that one PromQL query reads both kinds of replica). It
// records with the observation's context, so that the SDK's exemplar
// reservoirs take its trace.
type OTelSink struct {
	duration, ttfc, perChunk, tpot, maxGap  metric.Float64Histogram
	tokens                                  metric.Int64Histogram
	requests, outputTokens, promptTokens    metric.Int64Counter
	good, judged, basis, noCount, overflows metric.Int64Counter
	inFlight                                metric.Int64UpDownCounter

	chunks      *ChunkProducer // nil: perChunk records each gap
	chunkBounds []float64
	options     sync.Map // Key → *otelOptions
}

// OTelSink has every optional method of a Sink.
var (
	_ Sink          = (*OTelSink)(nil)
	_ Preparer      = (*OTelSink)(nil)
	_ Forgetter     = (*OTelSink)(nil)
	_ InFlightAdder = (*OTelSink)(nil)
)

// otelOptions are one key's attribute sets, built once.
type otelOptions struct {
	base, input, output, ok                    []metric.RecordOption
	baseAdd, tokenBasis, chunkBasis            []metric.AddOption
	okReq, noCountReq, zeroToken, rejected, wu []metric.AddOption
	noCount                                    [len(reasons)][]metric.AddOption
	fails                                      sync.Map // error type → *otelFailure
	attrs                                      []attribute.KeyValue
	chunks                                     *chunkHist // with a ChunkProducer
}

// otelFailure are one key's attribute sets of one error type.
type otelFailure struct {
	add []metric.AddOption
	rec []metric.RecordOption
}

// OTelOptions configure an OTelSink: the explicit bucket boundaries of
// its histograms (the conventions' when zero), and a ChunkProducer to
// export the chunk gaps through (nil: the SDK's instrument records each
// gap). The ChunkProducer must be registered on the reader
// (sdkmetric.WithProducer), or the chunk gaps are exported nowhere; it
// reports that through otel.Handle when it sees a gap UnreadAfter after
// its first.
type OTelOptions struct {
	Buckets Buckets
	Chunks  *ChunkProducer
}

// NewOTelSink creates the instruments with meter: Meter(provider) gives
// live's, which declares the conventions' schema URL. With opt.Chunks, the
// chunk gaps go to it, not to an instrument of meter's; it returns
// ErrProducerTaken when another sink has it.
func NewOTelSink(meter metric.Meter, opt OTelOptions) (*OTelSink, error) {
	bounds, err := opt.Buckets.bounds()
	if err != nil {
		return nil, err
	}
	s := &OTelSink{}
	fh := func(dst *metric.Float64Histogram, name string, h int) {
		if err == nil {
			*dst, err = meter.Float64Histogram(name, metric.WithUnit("s"), metric.WithDescription(histNames[h][1]),
				metric.WithExplicitBucketBoundaries(bounds[h]...))
		}
	}
	ic := func(dst *metric.Int64Counter, name, unit string, m promMetric) {
		if err == nil {
			*dst, err = meter.Int64Counter(name, metric.WithUnit(unit), metric.WithDescription(m.help))
		}
	}
	// The descriptions are the Prometheus exports'; the names are the
	// conventions' dotted ones.
	fh(&s.duration, "gen_ai.client.operation.duration", histDuration)
	fh(&s.ttfc, "gen_ai.client.operation.time_to_first_chunk", histTTFC)
	if opt.Chunks == nil {
		fh(&s.perChunk, "gen_ai.client.operation.time_per_output_chunk", histPerChunk)
	}
	fh(&s.tpot, "llmmetrics.time_per_output_token", histTPOT)
	fh(&s.maxGap, "llmmetrics.max_gap", histMaxGap)
	if err == nil {
		s.tokens, err = meter.Int64Histogram("gen_ai.client.token.usage", metric.WithUnit("{token}"),
			metric.WithDescription(histNames[histInput][1]), metric.WithExplicitBucketBoundaries(bounds[histInput]...))
	}
	ic(&s.requests, "llmmetrics.requests", "{request}", requestsCounter)
	ic(&s.outputTokens, "llmmetrics.output_tokens", "{token}", outputTokensCounter)
	ic(&s.promptTokens, "llmmetrics.prompt_tokens", "{token}", promptTokensCounter)
	ic(&s.good, "llmmetrics.goodput.good", "{request}", goodCounter)
	ic(&s.judged, "llmmetrics.goodput.offered", "{request}", judgedCounter)
	ic(&s.basis, "llmmetrics.gap_basis.requests", "{request}", basisCounter)
	ic(&s.noCount, "llmmetrics.no_count.requests", "{request}", noCountCounter)
	ic(&s.overflows, "llmmetrics.label_set_overflow", "{request}", overflowCounter)
	if err == nil {
		s.inFlight, err = meter.Int64UpDownCounter("llmmetrics.requests.in_flight", metric.WithUnit("{request}"),
			metric.WithDescription(inFlightGauge.help))
	}
	if err == nil && opt.Chunks != nil {
		err = opt.Chunks.take(bounds[histPerChunk])
		s.chunks, s.chunkBounds = opt.Chunks, bounds[histPerChunk]
	}
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
		attribute.String(attrOperation, k.Operation), attribute.String(attrProvider, k.Provider),
		attribute.String(attrRequestModel, k.Model), attribute.String(attrResponseModel, k.ResponseModel),
		attribute.String(attrAddress, k.Endpoint),
	}
	if k.Port > 0 {
		base = append(base, attribute.Int(attrPort, k.Port))
	}
	set := func(extra ...attribute.KeyValue) attribute.Set {
		return attribute.NewSet(append(append([]attribute.KeyValue{}, base...), extra...)...)
	}
	rec := func(a attribute.Set) []metric.RecordOption { return []metric.RecordOption{metric.WithAttributeSet(a)} }
	add := func(a attribute.Set) []metric.AddOption { return []metric.AddOption{metric.WithAttributeSet(a)} }
	outcome := func(o Outcome) []metric.AddOption {
		return add(set(attribute.String(attrOutcome, string(o))))
	}
	baseSet := set()
	o := &otelOptions{
		attrs: base,
		base:  rec(baseSet), baseAdd: add(baseSet),
		ok:         rec(set()), // error.type is not set on success
		input:      rec(set(attribute.String(attrTokenType, "input"))),
		output:     rec(set(attribute.String(attrTokenType, "output"))),
		tokenBasis: add(set(attribute.String(attrBasis, "token"))),
		chunkBasis: add(set(attribute.String(attrBasis, "chunk"))),
		okReq:      outcome(OutcomeOK), noCountReq: outcome(OutcomeNoCount), zeroToken: outcome(OutcomeZeroToken),
		rejected: outcome(OutcomeRejected), wu: outcome(OutcomeWarmup),
	}
	for i, r := range reasons {
		o.noCount[i] = add(set(attribute.String(attrReason, r)))
	}
	if s.chunks != nil {
		o.chunks = s.chunks.histOf(k, baseSet)
	}
	got, _ := s.options.LoadOrStore(k, o)
	return got.(*otelOptions)
}

// failureOf returns a key's attribute sets of error type t.
func (o *otelOptions) failureOf(t string) *otelFailure {
	if f, ok := o.fails.Load(t); ok {
		return f.(*otelFailure)
	}
	with := func(extra ...attribute.KeyValue) attribute.Set {
		return attribute.NewSet(append(append([]attribute.KeyValue{}, o.attrs...), extra...)...)
	}
	f := &otelFailure{
		add: []metric.AddOption{metric.WithAttributeSet(with(attribute.String(attrOutcome, string(OutcomeFailed)), attribute.String(attrErrorType, t)))},
		rec: []metric.RecordOption{metric.WithAttributeSet(with(attribute.String(attrErrorType, t)))},
	}
	got, _ := o.fails.LoadOrStore(t, f)
	return got.(*otelFailure)
}

// Prepare adds zero to a key's request counters, so that they are
// exported before its first observation (histograms appear with their
// first value). Recorder.Declare calls it.
func (s *OTelSink) Prepare(k Key) {
	ctx := context.Background()
	o := s.optionsOf(k.clean())
	for _, opts := range [][]metric.AddOption{o.okReq, o.noCountReq, o.zeroToken, o.rejected, o.wu} {
		s.requests.Add(ctx, 0, opts...)
	}
}

// Forget drops a key's attribute sets, and its chunk gaps from a
// ChunkProducer. The OpenTelemetry SDK keeps what its instruments
// aggregated until its own cardinality limit.
func (s *OTelSink) Forget(k Key) {
	k = k.clean()
	s.options.Delete(k)
	if s.chunks != nil {
		s.chunks.forget(k)
	}
}

// AddInFlight adds d to the calls in flight.
func (s *OTelSink) AddInFlight(ctx context.Context, d int64) { s.inFlight.Add(ctx, d) }

// Observe records one observation, with ctx (its trace for exemplars).
func (s *OTelSink) Observe(ctx context.Context, k Key, o Observation) {
	k = k.clean()
	opts := s.optionsOf(k)
	if o.Overflow {
		s.overflows.Add(ctx, 1)
	}
	if o.Judged {
		s.judged.Add(ctx, 1, opts.baseAdd...)
		if o.Good {
			s.good.Add(ctx, 1, opts.baseAdd...)
		}
	}
	switch o.Outcome {
	case OutcomeOK:
		s.requests.Add(ctx, 1, opts.okReq...)
	case OutcomeNoCount:
		s.requests.Add(ctx, 1, opts.noCountReq...)
		if i := int(o.Count) - 1; i >= 0 && i < len(reasons) {
			s.noCount.Add(ctx, 1, opts.noCount[i]...)
		}
	case OutcomeFailed:
		f := opts.failureOf(o.ErrorType)
		s.requests.Add(ctx, 1, f.add...)
		if o.HasDuration {
			s.duration.Record(ctx, o.Duration.Seconds(), f.rec...)
		}
		return
	case OutcomeZeroToken:
		s.requests.Add(ctx, 1, opts.zeroToken...)
		return
	case OutcomeRejected:
		s.requests.Add(ctx, 1, opts.rejected...)
		return
	case OutcomeWarmup:
		s.requests.Add(ctx, 1, opts.wu...)
		return
	}
	s.duration.Record(ctx, o.E2E.Seconds(), opts.ok...)
	if o.HasTTFT {
		s.ttfc.Record(ctx, o.TTFT.Seconds(), opts.base...)
	}
	if o.Outcome == OutcomeOK {
		s.tokens.Record(ctx, int64(o.OutputTokens), opts.output...)
		s.outputTokens.Add(ctx, int64(o.OutputTokens), opts.baseAdd...)
	}
	if o.PromptTokens > 0 {
		s.tokens.Record(ctx, int64(o.PromptTokens), opts.input...)
		s.promptTokens.Add(ctx, int64(o.PromptTokens), opts.baseAdd...)
	}
	if o.HasTPOT {
		s.tpot.Record(ctx, o.TPOT.Seconds(), opts.base...)
	}
	if o.HasMaxGap {
		s.maxGap.Record(ctx, o.MaxGap.Seconds(), opts.base...)
		if opts.chunks != nil {
			opts.chunks.observe(s.chunkBounds, o.Chunks)
			if !s.chunks.produced.Load() {
				s.chunks.unread(time.Now())
			}
		} else {
			// The chunk gaps go without the request's context: an
			// exemplar offered for each chunk of a traced request would
			// cost more than the chunk's record, and the request's own
			// metrics carry its trace.
			bg := context.Background()
			for i := 1; i < len(o.Chunks); i++ {
				s.perChunk.Record(bg, (o.Chunks[i] - o.Chunks[i-1]).Seconds(), opts.base...)
			}
		}
		if o.TokenBasis {
			s.basis.Add(ctx, 1, opts.tokenBasis...)
		} else {
			s.basis.Add(ctx, 1, opts.chunkBasis...)
		}
	}
}
