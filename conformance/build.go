package conformance

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// This file holds the small builders the hand-written cases use. Times are
// written in milliseconds, as the specification writes them, and kept in
// nanoseconds.

// ms converts milliseconds, written with at most six decimals, to a
// duration, exactly.
func ms(x float64) time.Duration { return time.Duration(math.Round(x * 1e6)) }

// v is a figure's value.
func v(x float64) Value { return Num(x) }

// none is an absent figure.
var none = Absent

// figs is a literal set of figures.
type figs = Figures

// PercentileKey names percentile p in a figure's name: p50, p99.9.
func PercentileKey(p float64) string { return "p" + strconv.FormatFloat(p, 'f', -1, 64) }

// req starts an ok request sent at sent ms from the run's epoch.
func req(id string, sent float64) *Request {
	return &Request{ID: id, Status: "ok", Start: ms(sent), Sent: ms(sent)}
}

// text adds text events at the given times, in ms from the send.
func (r *Request) text(at ...float64) *Request {
	for _, t := range at {
		r.Events = append(r.Events, Event{At: r.Sent + ms(t), Kind: KindText})
	}
	return r
}

// textTokens adds one text event carrying k tokens at t ms from the send.
func (r *Request) textTokens(t float64, k int) *Request {
	r.Events = append(r.Events, Event{At: r.Sent + ms(t), Kind: KindText, Tokens: k})
	return r
}

// event adds a non-text event of kind at t ms from the send.
func (r *Request) event(kind string, t float64) *Request {
	r.Events = append(r.Events, Event{At: r.Sent + ms(t), Kind: kind})
	return r
}

// every adds k text events, the first at first ms from the send and each
// next one gap ms later.
func (r *Request) every(k int, first, gap float64) *Request {
	for i := 0; i < k; i++ {
		r.text(first + float64(i)*gap)
	}
	return r
}

// usage sets the server's completion token count.
func (r *Request) usage(n int) *Request {
	r.CompletionTokens = &n
	return r
}

// prompt sets the server's prompt token count.
func (r *Request) prompt(n int) *Request {
	r.PromptTokens = &n
	return r
}

// fail ends the request in status (error, timeout, cancelled) with a message.
func (r *Request) fail(status, message string) *Request {
	r.Status, r.Message = status, message
	return r
}

// inRun puts the request in run k.
func (r *Request) inRun(k int) *Request {
	r.Run = k
	return r
}

// waited says the client began the call w ms before it wrote the request.
func (r *Request) waited(w float64) *Request {
	r.Start = r.Sent - ms(w)
	return r
}

// reqs dereferences a list of built requests.
func reqs(rs ...*Request) []Request {
	out := make([]Request, len(rs))
	for i, r := range rs {
		out[i] = *r
	}
	return out
}

// nearest and linear are the options of a case without SLO or window.
func nearest(ps ...float64) Options { return Options{Method: "nearest-rank", Percentiles: ps} }
func linear(ps ...float64) Options  { return Options{Method: "linear", Percentiles: ps} }

// withWindow and withSLO add a declared window (ms) and an SLO.
func (o Options) withWindow(w float64) Options { o.Window = ms(w); return o }
func (o Options) withSLO(s SLO) Options        { o.SLO = &s; return o }

// merge returns the union of figure sets; a later one wins.
func merge(fs ...Figures) Figures {
	out := Figures{}
	for _, f := range fs {
		for k, x := range f {
			out[k] = x
		}
	}
	return out
}

// counts gives the accounting figures.
func counts(offered, ok, zero, failed int) Figures {
	return figs{
		"requests.offered":    v(float64(offered)),
		"requests.ok":         v(float64(ok)),
		"requests.zero_token": v(float64(zero)),
		"requests.failed":     v(float64(failed)),
	}
}

// perRequest names a figure of one request.
func perRequest(id, figure string) string { return fmt.Sprintf("request.%s.%s", id, figure) }
