package live

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/observe"
)

// Options configure a Recorder. The zero Options is useful: no SLO, a
// sliding window of one minute in six slots, sketches with 1 % relative
// accuracy, the conventions' buckets, at most DefaultMaxLabelSets label
// sets, no records kept, no sinks.
type Options struct {
	// SLO, when set, judges every request for goodput.
	SLO *llmmetrics.SLO
	// Window is the sliding window's length and Slots the number of
	// sub-windows it moves by: the sliding figures cover the last Window,
	// to within one slot.
	Window time.Duration
	Slots  int
	// Accuracy is the sketches' relative accuracy α: a quantile q of a
	// sketch is within α·x of a value x of the sample whose rank is that
	// of q.
	Accuracy float64
	// KeepRecords keeps a copy of every record (its chunk arrivals shared,
	// never modified), so that Summary gives llmmetrics' exact figures.
	// Memory grows with the traffic.
	KeepRecords bool
	// Sinks receive every observation, in order.
	Sinks []Sink
	// MaxLabelSets bounds the identities the recorder keeps label sets
	// of. A label set's identity is its Key without the response model:
	// what the client's request decides (operation, provider, model,
	// server). The observations of a new identity beyond the limit go to
	// the label set whose every value is Other, and
	// llmmetrics_label_set_overflow_total counts them. An identity kept
	// keeps all its label sets: its failures' (a failed request has no
	// response model) and those of up to MaxResponseModels response
	// models, so that a model's failures stay beside its successes. 0
	// means DefaultMaxLabelSets; a negative value, no limit. The model
	// usually comes from the client's request, and each label set costs a
	// few hundred KB and 186 series a replica (Collector), 18 more for
	// each error type its failures have beyond _OTHER, timeout and
	// cancelled.
	MaxLabelSets int
	// Buckets are the classic histograms' bounds for the Collector; the
	// zero Buckets are the conventions' (DefaultBuckets). They are copied.
	Buckets Buckets
	// NativeHistograms makes the Collector export native (sparse)
	// buckets beside the classic ones, of the cumulative figures: schema 3
	// (each bucket 2^(1/8) ≈ 1.09 times the last, the buckets a
	// PrometheusSink with NativeFactor 1.1 has), at the cost of a map
	// update per histogram observation. Failures' durations stay classic.
	NativeHistograms bool
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

// DefaultMaxLabelSets is the number of label sets a Recorder keeps when
// Options.MaxLabelSets is 0.
const DefaultMaxLabelSets = 100

// maxErrorTypes bounds the distinct error.type values a Recorder exports:
// further ones are Other.
const maxErrorTypes = 32

// otherKey is the label set beyond the limit.
var otherKey = Key{Operation: Other, Provider: Other, Model: Other, ResponseModel: Other, Endpoint: Other}

// shards is the number of independent states a series records into, so
// that goroutines recording the same label set rarely wait for each other.
const shards = 8

// A Recorder keeps, per label set, the accounting of every outcome, the
// token counters, goodput counters and mergeable latency sketches (TTFT,
// TPOT, E2E, per-chunk gaps, the largest gap per request), cumulative and
// over a sliding window. It is safe for concurrent use.
type Recorder struct {
	opt    Options
	bounds *[numHists][]float64
	// recordObservers holds each sink's RecordObserver, or nil.
	recordObservers []RecordObserver
	series          sync.Map // Key → *series
	start           time.Time

	mu       sync.Mutex         // held to add or remove a label set
	idents   map[Key]*admission // the identities held, but otherKey's
	overflow atomic.Int64
	inFlight atomic.Int64
	errTypes sync.Map // error type → struct{}
	nErr     atomic.Int64
}

// NewRecorder returns a Recorder. It returns an error for options out of
// range.
func NewRecorder(opt Options) (*Recorder, error) {
	if opt.Window == 0 {
		opt.Window = time.Minute
	}
	if opt.Slots == 0 {
		opt.Slots = 6
	}
	if opt.Accuracy == 0 {
		opt.Accuracy = 0.01
	}
	switch {
	case opt.Window < 0 || opt.Slots < 1:
		return nil, fmt.Errorf("live: window %v in %d slots", opt.Window, opt.Slots)
	case !(opt.Accuracy > 0 && opt.Accuracy < 1):
		return nil, fmt.Errorf("live: sketch accuracy %v: want a fraction in (0, 1)", opt.Accuracy)
	}
	if opt.SLO != nil {
		if _, err := opt.SLO.Meets(&llmmetrics.Record{ID: "probe", FirstText: 1, LastText: 1, CompletionTokens: 1}); err != nil &&
			!errors.Is(err, llmmetrics.ErrNoChunks) {
			return nil, fmt.Errorf("live: %w", err)
		}
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.MaxLabelSets == 0 {
		opt.MaxLabelSets = DefaultMaxLabelSets
	}
	bounds, err := opt.Buckets.bounds()
	if err != nil {
		return nil, err
	}
	opt.Sinks = slices.Clone(opt.Sinks)
	ros := make([]RecordObserver, len(opt.Sinks))
	for i, sink := range opt.Sinks {
		ros[i], _ = sink.(RecordObserver)
	}
	return &Recorder{opt: opt, bounds: bounds, recordObservers: ros, start: opt.Now(), idents: map[Key]*admission{}}, nil
}

// Record takes one finished request's record: it counts it, adds its
// latencies to the sketches and hands its observation to the sinks. The
// record is not modified; with KeepRecords a copy is kept. It is
// RecordContext with the background context.
func (rec *Recorder) Record(k Key, r *llmmetrics.Record) {
	rec.record(context.Background(), k, r, extra{})
}

// RecordContext is Record with the request's context, which sinks that
// support exemplars take the trace from. A failed record's error.type is
// its status's (timeout, cancelled, or Other); RecordResult knows more.
func (rec *Recorder) RecordContext(ctx context.Context, k Key, r *llmmetrics.Record) {
	rec.record(ctx, k, r, extra{})
}

// RecordResult records a Transport's result under its own label set
// (KeyOf), with its error.type (ErrorTypeOf) and its duration, and a
// non-streaming reply outside the time to first chunk. Its signature is
// Transport.OnResultContext's.
func (rec *Recorder) RecordResult(ctx context.Context, r *observe.Result) {
	rec.record(ctx, KeyOf(r), &r.Record, extra{errorType: ErrorTypeOf(r), duration: r.Duration, ended: true,
		unary: r.Record.Status == llmmetrics.StatusOK && !r.Streamed})
}

// Transport returns an observe.Transport over base (nil means
// http.DefaultTransport) that records every call through it with
// RecordResult and keeps the gauge of calls in flight: the whole wiring
// of a gateway's client.
func (rec *Recorder) Transport(base http.RoundTripper) *observe.Transport {
	return &observe.Transport{
		Base: base,
		OnStart: func(ctx context.Context) {
			rec.addInFlight(ctx, 1)
		},
		OnResultContext: func(ctx context.Context, r *observe.Result) {
			rec.addInFlight(ctx, -1)
			rec.RecordResult(ctx, r)
		},
	}
}

// InFlight returns the number of calls through the recorder's Transport
// that have begun and not yet ended.
func (rec *Recorder) InFlight() int64 { return rec.inFlight.Load() }

func (rec *Recorder) addInFlight(ctx context.Context, d int64) {
	rec.inFlight.Add(d)
	for _, sink := range rec.opt.Sinks {
		if f, ok := sink.(InFlightAdder); ok {
			f.AddInFlight(ctx, d)
		}
	}
}

// errorType returns an error type as exported: a valid label value, and
// Other beyond the recorder's limit of distinct ones.
func (rec *Recorder) errorType(t string) string {
	if t == "" {
		return ""
	}
	t = cleanLabel(t)
	if _, ok := rec.errTypes.Load(t); ok {
		return t
	}
	if rec.nErr.Add(1) > maxErrorTypes {
		return Other
	}
	rec.errTypes.Store(t, struct{}{})
	return t
}

func (rec *Recorder) record(ctx context.Context, k Key, r *llmmetrics.Record, x extra) {
	o := observationOf(r, rec.opt.SLO, x)
	o.ErrorType = rec.errorType(o.ErrorType)
	ck := k.clean()
	s, k := rec.seriesOf(ck, true)
	o.Overflow = k != ck
	now := rec.opt.Now()
	sh := &s.shards[s.next.Add(1)%shards]
	sh.mu.Lock()
	sh.rotate(now, rec.opt)
	sh.slots[sh.current].add(&o) // the cumulative figures are retired + every slot
	if sh.native != nil {
		sh.native.add(&o)
	}
	if rec.opt.KeepRecords {
		sh.records = append(sh.records, *r)
	}
	sh.mu.Unlock()
	for i, sink := range rec.opt.Sinks {
		if ro := rec.recordObservers[i]; ro != nil {
			ro.ObserveRecord(ctx, k, o, *r) // a copy: r does not escape
		} else {
			sink.Observe(ctx, k, o)
		}
	}
}

// Overflowed returns how many observations went to another label set
// than their own: to the Other one because the recorder held
// Options.MaxLabelSets identities already, or to their identity's with
// the response model Other because it held MaxResponseModels.
func (rec *Recorder) Overflowed() int64 { return rec.overflow.Load() }

// Declare creates the label sets of keys (known models, say) ahead of
// their first request, so that their series are exported at zero from the
// first scrape and rate() sees every request; sinks with a Prepare method
// create theirs. Declared label sets count toward the limit.
//
// A key matches real traffic only when it is the one KeyOf gives the
// requests' results, every field set: the calls of a Transport to
// http://10.0.0.5:8080/v1/chat/completions asking for model "m" fail
// under
//
//	Key{Operation: "chat", Provider: "openai", Model: "m", Endpoint: "10.0.0.5", Port: 8080}
//
// (no response model: a request that failed before its response got
// none) and succeed under the same key with the response model the
// server answers: the name it serves the model under (llama.cpp's
// server answers its --alias, or the model file's path without one;
// vLLM its --served-model-name), "m" only when it was started so.
// Declare both. The port is the URL's, or
// 80 (http) or 443 (https); the provider is Transport.Provider when set.
func (rec *Recorder) Declare(keys ...Key) {
	for _, k := range keys {
		_, k = rec.seriesOf(k.clean(), false)
		for _, sink := range rec.opt.Sinks {
			if p, ok := sink.(Preparer); ok {
				p.Prepare(k)
			}
		}
	}
}

// Remove forgets a label set: its figures and its series (in the
// Collector, and in sinks with a Forget method) are gone, and it no
// longer counts toward the limit. It reports whether the recorder had it.
func (rec *Recorder) Remove(k Key) bool {
	k = k.clean()
	rec.mu.Lock()
	_, had := rec.series.LoadAndDelete(k)
	if had {
		rec.hold(k, -1)
	}
	rec.mu.Unlock()
	for _, sink := range rec.opt.Sinks {
		if f, ok := sink.(Forgetter); ok {
			f.Forget(k)
		}
	}
	return had
}

// Summary summarizes the records kept for a label set with llmmetrics'
// exact figures. It returns ErrNotKept when the Recorder does not keep
// records, and llmmetrics.ErrNoRecords when the label set has none.
func (rec *Recorder) Summary(k Key, opt llmmetrics.Options) (*llmmetrics.Summary, error) {
	if !rec.opt.KeepRecords {
		return nil, ErrNotKept
	}
	v, ok := rec.series.Load(k.clean())
	if !ok {
		return nil, llmmetrics.ErrNoRecords
	}
	s := v.(*series)
	var recs []llmmetrics.Record
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		recs = append(recs, sh.records...)
		sh.mu.Unlock()
	}
	if opt.SLO == nil {
		opt.SLO = rec.opt.SLO
	}
	return llmmetrics.Summarize(recs, opt)
}

// ErrNotKept is the error of Summary on a Recorder that keeps no records.
var ErrNotKept = errors.New("live: the recorder keeps no records (Options.KeepRecords)")
