package observe

import (
	"context"
	"net/http"
)

// A Tracer traces the calls a Transport observes: an adapter to a tracing
// library (the live module's NewTracer is OpenTelemetry's), kept behind
// this interface so that observe depends on the standard library alone.
//
// Start is called as an observed call begins, before its request is sent,
// with the request's context and the request the Transport will send: a
// copy of the caller's, whose Header is the Transport's own, so that
// Start may add to it what carries the trace to the server (a W3C
// traceparent) without touching the caller's request. Start must change
// nothing else of it. The context it returns goes on the request sent (the
// server's spans join the trace) and to OnStart and OnResultContext (the
// metrics' exemplars name the span). The call ends once: Start's end
// function receives the finished Result — its record, status, error and
// usage — before OnResult and OnResultContext do, from the goroutine that
// read or closed the body; it must not keep the Result's slices.
type Tracer interface {
	Start(ctx context.Context, req *http.Request) (context.Context, func(*Result))
}

// startTrace starts the trace of a call: it returns a copy of req with a
// Header of its own and the trace's context, to be sent, and the end of
// the trace.
func startTrace(tr Tracer, req *http.Request) (*http.Request, func(*Result)) {
	out := req.WithContext(req.Context())
	out.Header = req.Header.Clone()
	if out.Header == nil {
		out.Header = make(http.Header)
	}
	ctx, end := tr.Start(req.Context(), out)
	if end == nil {
		end = func(*Result) {}
	}
	if ctx != nil && ctx != req.Context() {
		out = out.WithContext(ctx)
	}
	return out, end
}
