package live

import (
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/observe"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"
)

// The span attributes of llmmetrics' own, where the conventions have
// none: the client's wait before the send and the largest chunk gap, in
// seconds; the outcome and the no_count reason, as the metrics' labels
// say them.
const (
	attrClientWait = "llmmetrics.client.wait"
	attrMaxGap     = "llmmetrics.max_gap"
)

// exceptionEvent is the conventions' event of a failed GenAI client
// operation.
const exceptionEvent = "gen_ai.client.operation.exception"

// MaxMessageLength is the longest error message a span carries (its
// status description and exception.message), in bytes: a longer one is
// cut at a character boundary.
const MaxMessageLength = 1024

// spanInput is what one call's span says: from a Transport's Result, or
// from a record and its label set. Its strings are valid label values.
type spanInput struct {
	k                   Key
	r                   *llmmetrics.Record
	x                   extra
	responseID, finish  string
	stream, streamKnown bool
	usageKnown          bool
	cached              int
	cacheKnown          bool
}

// resultInput returns the span input of a Transport's result.
func resultInput(r *observe.Result) spanInput {
	return spanInput{
		k: KeyOf(r).clean(), r: &r.Record,
		x: extra{errorType: ErrorTypeOf(r), duration: r.Duration, ended: true,
			unary: r.Record.Status == llmmetrics.StatusOK && !r.Streamed},
		responseID: cleanLabel(r.ResponseID), finish: cleanLabel(r.Finish),
		stream: r.RequestStream, streamKnown: r.StreamKnown,
		usageKnown: r.UsageKnown, cached: r.CachedTokens, cacheKnown: r.CacheKnown,
	}
}

// recordInput returns the span input of a record under the label set k:
// its output count is known unless NoUsage says otherwise, or it failed
// with none.
func recordInput(k Key, r *llmmetrics.Record) spanInput {
	return spanInput{k: k.clean(), r: r,
		usageKnown: !r.NoUsage && (r.Status == llmmetrics.StatusOK || r.CompletionTokens > 0)}
}

// spanName is the conventions' span name: "{gen_ai.operation.name}
// {gen_ai.request.model}", the operation alone when the model is unknown.
func spanName(k Key) string {
	if k.Model == "" {
		return k.Operation
	}
	return k.Operation + " " + k.Model
}

// startAttrs appends the attributes known as the call begins, which a
// sampler sees: the operation, provider, request model, stream flag,
// output limit, and server address and port.
func (in *spanInput) startAttrs(dst []attribute.KeyValue) []attribute.KeyValue {
	dst = append(dst, semconv.GenAIOperationNameKey.String(in.k.Operation), semconv.GenAIProviderNameKey.String(in.k.Provider))
	if in.k.Model != "" {
		dst = append(dst, semconv.GenAIRequestModel(in.k.Model))
	}
	if in.streamKnown {
		dst = append(dst, semconv.GenAIRequestStream(in.stream))
	}
	if in.r.MaxTokens > 0 {
		dst = append(dst, semconv.GenAIRequestMaxTokens(in.r.MaxTokens))
	}
	if in.k.Endpoint != "" {
		dst = append(dst, semconv.ServerAddress(in.k.Endpoint))
	}
	if in.k.Port > 0 {
		dst = append(dst, semconv.ServerPort(in.k.Port))
	}
	return dst
}

// endAttrs appends the attributes the response gave, and returns the
// observation they came from (its outcome and error type).
func (in *spanInput) endAttrs(dst []attribute.KeyValue) ([]attribute.KeyValue, Observation) {
	r := in.r
	o := spanOutcome(r, in.x)
	o.ErrorType = cleanLabel(o.ErrorType)
	if in.responseID != "" {
		dst = append(dst, semconv.GenAIResponseID(in.responseID))
	}
	if in.k.ResponseModel != "" {
		dst = append(dst, semconv.GenAIResponseModel(in.k.ResponseModel))
	}
	if in.finish != "" {
		dst = append(dst, finishReasons(in.finish))
	}
	if ttft, ok := firstChunk(r, in.x.unary); ok {
		dst = append(dst, semconv.GenAIResponseTimeToFirstChunk(ttft.Seconds()))
	}
	if r.PromptTokens > 0 {
		dst = append(dst, semconv.GenAIUsageInputTokens(r.PromptTokens))
	}
	if in.usageKnown {
		dst = append(dst, semconv.GenAIUsageOutputTokens(r.CompletionTokens))
	}
	if in.cacheKnown {
		dst = append(dst, semconv.GenAIUsageCacheReadInputTokens(in.cached))
	}
	if c := r.Client; c != nil && c.HasReasoning {
		dst = append(dst, semconv.GenAIUsageReasoningOutputTokens(c.ReasoningTokens))
	}
	if o.ErrorType != "" {
		dst = append(dst, semconv.ErrorTypeKey.String(o.ErrorType))
	}
	dst = append(dst, attribute.String(attrOutcome, string(o.Outcome)))
	if i := int(o.Count) - 1; o.Outcome == OutcomeNoCount && i >= 0 && i < len(reasons) {
		dst = append(dst, attribute.String(attrReason, reasons[i]))
	}
	if r.Client != nil {
		dst = append(dst, attribute.Float64(attrClientWait, r.Client.Wait.Seconds()))
	}
	if o.HasMaxGap {
		dst = append(dst, attribute.Float64(attrMaxGap, o.MaxGap.Seconds()))
	}
	return dst, o
}

// commonFinishes are the finish reasons servers send most, whose
// attribute is made once.
var commonFinishes = func() map[string]attribute.KeyValue {
	m := map[string]attribute.KeyValue{}
	for _, f := range []string{"stop", "length", "tool_calls", "content_filter", "function_call", "eos_token", "stop_sequence", "completed", "incomplete"} {
		m[f] = semconv.GenAIResponseFinishReasonsKey.StringSlice([]string{f})
	}
	return m
}()

// finishReasons returns the gen_ai.response.finish_reasons of a response
// that gave one.
func finishReasons(f string) attribute.KeyValue {
	if kv, ok := commonFinishes[f]; ok {
		return kv
	}
	return semconv.GenAIResponseFinishReasonsKey.StringSlice([]string{f})
}

// spanOutcome returns the outcome, error type and count state of r as
// observationOf gives them, and its largest chunk gap, in one pass over
// its chunks beyond its validation: a span's end adds no work a chunk the
// Recorder does not do already.
func spanOutcome(r *llmmetrics.Record, x extra) Observation {
	var o Observation
	switch {
	case r.Warmup:
		o.Outcome = OutcomeWarmup
		return o
	case r.Validate() != nil:
		o.Outcome = OutcomeRejected
		return o
	}
	switch r.Category() {
	case llmmetrics.CategoryFailed:
		o.Outcome, o.ErrorType = OutcomeFailed, x.errorType
		if o.ErrorType == "" {
			o.ErrorType = statusErrorType(r.Status)
		}
		return o
	case llmmetrics.CategoryZeroToken:
		o.Outcome = OutcomeZeroToken
		return o
	}
	o.Outcome = OutcomeOK
	if o.Count = r.CountState(); o.Count != llmmetrics.CountKnown {
		o.Outcome = OutcomeNoCount
	}
	if len(r.Chunks) >= 2 {
		for i := 1; i < len(r.Chunks); i++ {
			o.MaxGap = max(o.MaxGap, r.Chunks[i]-r.Chunks[i-1])
		}
		o.HasMaxGap = true
	}
	return o
}

// firstChunk returns the arrival of the first text-bearing chunk, from the
// send, of a streamed response (unary false) that had one: a failed
// stream's too, when text came before its failure.
func firstChunk(r *llmmetrics.Record, unary bool) (time.Duration, bool) {
	switch {
	case unary:
		return 0, false
	case len(r.Chunks) > 0:
		return r.Chunks[0], true
	case r.Category() == llmmetrics.CategoryOK && r.Validate() == nil:
		d, err := r.TTFT()
		return d, err == nil
	}
	return 0, false
}

// endSpan sets what the response gave on span, its status and, for a
// failure, the conventions' exception event, and ends it: at end, or now
// when end is zero.
func endSpan(span trace.Span, in *spanInput, end time.Time) {
	buf := spanBufs.Get().(*spanBuf)
	attrs, o := in.endAttrs(buf.attrs[:0])
	span.SetAttributes(attrs...)
	clear(attrs)
	spanBufs.Put(buf)
	if o.Outcome == OutcomeFailed {
		msg := capText(in.r.Message, MaxMessageLength)
		span.SetStatus(codes.Error, msg)
		ev := []trace.EventOption{trace.WithAttributes(semconv.ExceptionType(o.ErrorType), semconv.ExceptionMessage(msg))}
		if !end.IsZero() {
			ev = append(ev, trace.WithTimestamp(end))
		}
		span.AddEvent(exceptionEvent, ev...)
	}
	if end.IsZero() {
		span.End()
	} else {
		span.End(trace.WithTimestamp(end))
	}
}
