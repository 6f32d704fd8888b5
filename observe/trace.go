package observe

import (
	"context"
	"net/http"
)

// A Tracer traces the calls a Transport observes: an adapter to a tracing
// library (the live module's NewTracer is OpenTelemetry's), kept behind
// this interface so that observe depends on the standard library alone.
//
// Start is called as an observed call begins, once its request body has
// been read and before it is sent, with the request's context, the
// headers the request will be sent with, and the call's Result so far:
// its operation, provider, request model, server address and port, output
// limit (Record.MaxTokens) and stream flag, for the span's name and the
// attributes a sampler sees. The headers are a copy of the caller's, the
// Transport's own, so that Start may add to them what carries the trace
// to the server (a W3C traceparent) without touching the caller's request;
// Start must not change the Result. The context it returns goes on the
// request sent (the server's spans join the trace) and to OnStart and
// OnResultContext (the metrics' exemplars name the span). Start's end
// function is called once, with the finished Result — its record, status,
// error and usage — before OnResult and OnResultContext, from the
// goroutine that read or closed the body; it must not keep the Result's
// slices.
type Tracer interface {
	Start(ctx context.Context, header http.Header, r *Result) (context.Context, func(*Result))
}

// startTrace starts the trace of a call to be sent with header, and
// returns the trace's context and end.
func startTrace(tr Tracer, ctx context.Context, header http.Header, r *Result) (context.Context, func(*Result)) {
	tctx, end := tr.Start(ctx, header, r)
	if tctx == nil {
		tctx = ctx
	}
	if end == nil {
		end = func(*Result) {}
	}
	return tctx, end
}

// ownHeader returns a copy of h with room for the trace's headers. Its
// values are h's, each cut to its length, so that an Add to a copied key
// copies the values rather than writing into the caller's array.
func ownHeader(h http.Header) http.Header {
	own := make(http.Header, len(h)+2)
	for k, v := range h {
		own[k] = v[:len(v):len(v)]
	}
	return own
}
