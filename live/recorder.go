package live

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/DataDog/sketches-go/ddsketch"
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

// A Sink receives the observation of every record, by value (so that
// recording allocates nothing), from the goroutine that recorded it, with
// the context it was recorded with (a sink that supports exemplars takes
// the trace from it): it must be safe for concurrent use. The Key's values
// are valid label values. A sink may also have the methods Prepare(Key)
// (called by Recorder.Declare), Forget(Key) (by Recorder.Remove) and
// AddInFlight(context.Context, int64) (by the Recorder's Transport).
type Sink interface {
	Observe(ctx context.Context, k Key, o Observation)
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
	series sync.Map // Key → *series
	start  time.Time

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
	return &Recorder{opt: opt, bounds: bounds, start: opt.Now(), idents: map[Key]*admission{}}, nil
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
		if f, ok := sink.(interface {
			AddInFlight(context.Context, int64)
		}); ok {
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
	for _, sink := range rec.opt.Sinks {
		sink.Observe(ctx, k, o)
	}
}

// series is one label set's state.
type series struct {
	next   atomic.Uint32
	shards [shards]shard
}

type shard struct {
	mu sync.Mutex
	// retired holds what the slots held when they left the window: the
	// cumulative figures are retired merged with every slot, so that a
	// record is added to one state only.
	retired   state
	slots     []state
	slotStart []time.Time
	current   int
	records   []llmmetrics.Record
	native    *natives // cumulative, with Options.NativeHistograms
}

// seriesOf returns the state of label set k (a clean key), creating it
// while there is room, and the key it is kept under (see admit): another
// than k is counted as an overflow when count is true.
func (rec *Recorder) seriesOf(k Key, count bool) (*series, Key) {
	if s, ok := rec.series.Load(k); ok {
		return s.(*series), k
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if s, ok := rec.series.Load(k); ok {
		return s.(*series), k
	}
	if a := rec.admit(k); a != k {
		if count {
			rec.overflow.Add(1)
		}
		k = a
		if s, ok := rec.series.Load(k); ok {
			return s.(*series), k
		}
	}
	s := &series{}
	now := rec.opt.Now()
	for i := range s.shards {
		sh := &s.shards[i]
		sh.retired = newState(rec.opt.Accuracy, rec.bounds)
		sh.slots = make([]state, rec.opt.Slots)
		sh.slotStart = make([]time.Time, rec.opt.Slots)
		for j := range sh.slots {
			sh.slots[j] = newState(rec.opt.Accuracy, rec.bounds)
		}
		sh.slotStart[0] = now
		if rec.opt.NativeHistograms {
			sh.native = &natives{}
		}
	}
	rec.series.Store(k, s)
	rec.hold(k, 1)
	return s, k
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
			if p, ok := sink.(interface{ Prepare(Key) }); ok {
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
		if f, ok := sink.(interface{ Forget(Key) }); ok {
			f.Forget(k)
		}
	}
	return had
}

// rotate moves the shard's current slot on to the slot that holds now,
// clearing the slots it passes.
func (sh *shard) rotate(now time.Time, opt Options) {
	width := opt.Window / time.Duration(opt.Slots)
	if width <= 0 {
		return
	}
	for now.Sub(sh.slotStart[sh.current]) >= width {
		next := (sh.current + 1) % len(sh.slots)
		start := sh.slotStart[sh.current].Add(width)
		if now.Sub(start) >= opt.Window {
			// Idle for a whole window: start afresh at now.
			for i := range sh.slots {
				sh.retire(i)
				sh.slotStart[i] = time.Time{}
			}
			sh.current, sh.slotStart[next] = next, now
			continue
		}
		sh.retire(next)
		sh.current, sh.slotStart[next] = next, start
	}
}

// retire moves slot i's figures into the retired state and empties it.
func (sh *shard) retire(i int) {
	sh.retired.merge(&sh.slots[i])
	sh.slots[i].reset()
}

// Counts is the accounting of a label set. It always holds that
//
//	Offered = OK + ZeroToken + Failed + Rejected + Warmup
//	Failed  = Errors + Timeouts + Cancelled
//
// Judged counts the requests in the goodput denominator (every offered
// request but warm-up, when an SLO is set) and Good those that met it.
type Counts struct {
	Offered, OK, ZeroToken, Failed, Rejected, Warmup int64
	Errors, Timeouts, Cancelled                      int64
	OneToken                                         int64 // ok requests with n = 1: no TPOT
	// NoUsage, ZeroUsage and BelowChunks are the ok requests without a
	// usable token count, by reason (llmmetrics.CountState): among OK,
	// exported as the outcome no_count. They have TTFT, E2E and gaps,
	// and no TPOT or output tokens.
	NoUsage, ZeroUsage, BelowChunks int64
	TokenBasis, ChunkBasis          int64 // ok requests with ≥ 2 chunks, by gap basis
	OutputTokens, PromptTokens      int64 // of ok requests; never to be added together
	Judged, Good                    int64
}

func (c *Counts) add(o *Observation) {
	c.Offered++
	switch o.Outcome {
	case OutcomeOK, OutcomeNoCount:
		c.OK++
		switch o.Count {
		case llmmetrics.CountNoUsage:
			c.NoUsage++
		case llmmetrics.CountZeroUsage:
			c.ZeroUsage++
		case llmmetrics.CountBelowChunks:
			c.BelowChunks++
		default:
			if o.OutputTokens == 1 {
				c.OneToken++
			}
		}
		if o.HasMaxGap {
			if o.TokenBasis {
				c.TokenBasis++
			} else {
				c.ChunkBasis++
			}
		}
		c.OutputTokens += int64(o.OutputTokens)
		c.PromptTokens += int64(o.PromptTokens)
	case OutcomeZeroToken:
		c.ZeroToken++
	case OutcomeFailed:
		c.Failed++
		switch o.Status {
		case llmmetrics.StatusTimeout:
			c.Timeouts++
		case llmmetrics.StatusCancelled:
			c.Cancelled++
		default:
			c.Errors++
		}
	case OutcomeRejected:
		c.Rejected++
	case OutcomeWarmup:
		c.Warmup++
	}
	if o.Judged {
		c.Judged++
		if o.Good {
			c.Good++
		}
	}
}

func (c *Counts) merge(d Counts) {
	c.Offered += d.Offered
	c.OK += d.OK
	c.ZeroToken += d.ZeroToken
	c.Failed += d.Failed
	c.Rejected += d.Rejected
	c.Warmup += d.Warmup
	c.Errors += d.Errors
	c.Timeouts += d.Timeouts
	c.Cancelled += d.Cancelled
	c.OneToken += d.OneToken
	c.NoUsage += d.NoUsage
	c.ZeroUsage += d.ZeroUsage
	c.BelowChunks += d.BelowChunks
	c.TokenBasis += d.TokenBasis
	c.ChunkBasis += d.ChunkBasis
	c.OutputTokens += d.OutputTokens
	c.PromptTokens += d.PromptTokens
	c.Judged += d.Judged
	c.Good += d.Good
}

// Attainment returns Good / Judged, and false when nothing was judged.
func (c Counts) Attainment() (float64, bool) {
	if c.Judged == 0 {
		return 0, false
	}
	return float64(c.Good) / float64(c.Judged), true
}

// state is one window's counts and sketches (in seconds), with each
// sketch's exact sum, and the classic buckets the Collector exports; the
// failures by error type, with their durations.
type state struct {
	counts                        Counts
	ttft, tpot, e2e, gap, maxGaps *ddsketch.DDSketch
	sums                          [5]time.Duration // ttft, tpot, e2e, gap, maxGaps
	hist                          [numHists]buckets
	bounds                        *[numHists][]float64
	fails                         map[string]*failures
}

// failures are the failed requests of one error type, and the buckets of
// the durations known of them.
type failures struct {
	n   int64
	dur buckets
}

func newState(accuracy float64, bounds *[numHists][]float64) state {
	mk := func() *ddsketch.DDSketch {
		s, err := ddsketch.NewDefaultDDSketch(accuracy)
		if err != nil {
			panic(err) // accuracy was checked in NewRecorder
		}
		return s
	}
	st := state{ttft: mk(), tpot: mk(), e2e: mk(), gap: mk(), maxGaps: mk(), bounds: bounds}
	for i := range st.hist {
		st.hist[i].counts = make([]uint64, len(bounds[i])+1)
	}
	return st
}

// failuresOf returns the failures of error type t, made on first use.
func (st *state) failuresOf(t string) *failures {
	f := st.fails[t]
	if f == nil {
		if st.fails == nil {
			st.fails = map[string]*failures{}
		}
		f = &failures{dur: buckets{counts: make([]uint64, len(st.bounds[histDuration])+1)}}
		st.fails[t] = f
	}
	return f
}

func (st *state) add(o *Observation) {
	st.counts.add(o)
	b := st.bounds
	switch o.Outcome {
	case OutcomeFailed:
		f := st.failuresOf(o.ErrorType)
		f.n++
		if o.HasDuration {
			f.dur.observe(b[histDuration], o.Duration.Seconds())
		}
		return
	case OutcomeOK, OutcomeNoCount:
	default:
		return
	}
	histValues(o, func(h int, v float64) { st.hist[h].observe(b[h], v) })
	st.e2e.Add(o.E2E.Seconds())
	st.sums[2] += o.E2E
	if o.HasTTFT {
		st.ttft.Add(o.TTFT.Seconds())
		st.sums[0] += o.TTFT
	}
	if o.HasTPOT {
		st.tpot.Add(o.TPOT.Seconds())
		st.sums[1] += o.TPOT
	}
	if o.HasMaxGap {
		st.maxGaps.Add(o.MaxGap.Seconds())
		st.sums[4] += o.MaxGap
		for i := 1; i < len(o.Chunks); i++ {
			g := o.Chunks[i] - o.Chunks[i-1]
			st.gap.Add(g.Seconds())
			st.sums[3] += g
		}
	}
}

// merge adds another state's figures to st.
func (st *state) merge(o *state) {
	st.counts.merge(o.counts)
	for i, p := range [][2]*ddsketch.DDSketch{{st.ttft, o.ttft}, {st.tpot, o.tpot}, {st.e2e, o.e2e}, {st.gap, o.gap}, {st.maxGaps, o.maxGaps}} {
		if !p[1].IsEmpty() {
			p[0].MergeWith(p[1])
		}
		st.sums[i] += o.sums[i]
	}
	for i := range st.hist {
		st.hist[i].merge(&o.hist[i])
	}
	for t, f := range o.fails {
		g := st.failuresOf(t)
		g.n += f.n
		g.dur.merge(&f.dur)
	}
}

func (st *state) reset() {
	st.counts = Counts{}
	st.sums = [5]time.Duration{}
	for i := range st.hist {
		clear(st.hist[i].counts)
		st.hist[i].sum = 0
	}
	for _, f := range st.fails {
		f.n = 0
		clear(f.dur.counts)
		f.dur.sum = 0
	}
	for _, s := range []*ddsketch.DDSketch{st.ttft, st.tpot, st.e2e, st.gap, st.maxGaps} {
		s.Clear()
	}
}

// A Snapshot is a label set's figures over a window: cumulative (Window
// 0, since Since) or sliding (the last Window, to within one slot).
type Snapshot struct {
	Key    Key
	Window time.Duration
	Since  time.Time
	Counts Counts
	// The latency distributions, mergeable sketches of relative accuracy
	// Accuracy.
	TTFT, TPOT, E2E, Gap, MaxGap Dist

	// The classic buckets the Collector exports, at bounds, and the
	// failures by error type.
	bounds *[numHists][]float64
	hist   [numHists]buckets
	fails  map[string]*failures
	native *natives // cumulative snapshots of a recorder with native histograms
}

func (s *Snapshot) addNative(n *natives) {
	if s.native == nil {
		s.native = &natives{}
	}
	for h := range n {
		s.native[h].merge(&n[h])
	}
}

// addClassic adds classic buckets at bounds and failures to the
// snapshot's; buckets at other bounds than the snapshot's are left out
// (the sketches merge whatever the bounds).
func (s *Snapshot) addClassic(bounds *[numHists][]float64, hist *[numHists]buckets, fails map[string]*failures) {
	if s.bounds == nil {
		s.bounds = bounds
		for i := range s.hist {
			s.hist[i].counts = make([]uint64, len(bounds[i])+1)
		}
	}
	if !sameBounds(s.bounds, bounds) {
		return
	}
	for i := range s.hist {
		s.hist[i].merge(&hist[i])
	}
	for t, f := range fails {
		if s.fails == nil {
			s.fails = map[string]*failures{}
		}
		g := s.fails[t]
		if g == nil {
			g = &failures{dur: buckets{counts: make([]uint64, len(s.bounds[histDuration])+1)}}
			s.fails[t] = g
		}
		g.n += f.n
		g.dur.merge(&f.dur)
	}
}

// A Dist is a latency distribution kept as a DDSketch: any quantile is
// within a relative Accuracy of a sample value of the right rank, and
// distributions merge exactly (the merge of two sketches is the sketch of
// the two samples together).
type Dist struct {
	Accuracy float64
	sketch   *ddsketch.DDSketch
	sum      time.Duration // exact
}

// Count returns the number of values.
func (d Dist) Count() int64 {
	if d.sketch == nil {
		return 0
	}
	return int64(d.sketch.GetCount())
}

// Quantile returns the value at quantile q in [0, 1]. It returns
// llmmetrics.ErrNoSamples for an empty distribution.
func (d Dist) Quantile(q float64) (time.Duration, error) {
	if d.Count() == 0 {
		return 0, llmmetrics.ErrNoSamples
	}
	if !(q >= 0 && q <= 1) {
		return 0, fmt.Errorf("live: quantile %v outside [0, 1]", q)
	}
	v, err := d.sketch.GetValueAtQuantile(q)
	if err != nil {
		return 0, err
	}
	return time.Duration(v * 1e9), nil
}

// Mean returns the mean of the values: their exact sum, kept beside the
// sketch, over their count, to the nearest nanosecond.
func (d Dist) Mean() (time.Duration, error) {
	n := d.Count()
	if n == 0 {
		return 0, llmmetrics.ErrNoSamples
	}
	q, r := d.sum/time.Duration(n), d.sum%time.Duration(n)
	if 2*r >= time.Duration(n) {
		q++
	}
	return q, nil
}

func (d *Dist) merge(s *ddsketch.DDSketch, sum time.Duration) {
	d.sum += sum
	if d.sketch == nil {
		d.sketch = s.Copy()
		return
	}
	d.sketch.MergeWith(s)
}

// Snapshots returns every label set's figures, cumulative when window is
// false and over the sliding window when true, in key order.
func (rec *Recorder) Snapshots(window bool) []Snapshot {
	var out []Snapshot
	now := rec.opt.Now()
	rec.series.Range(func(k, v any) bool {
		s := v.(*series)
		snap := Snapshot{Key: k.(Key), Since: rec.start}
		for _, d := range []*Dist{&snap.TTFT, &snap.TPOT, &snap.E2E, &snap.Gap, &snap.MaxGap} {
			d.Accuracy = rec.opt.Accuracy
		}
		if window {
			snap.Window, snap.Since = rec.opt.Window, now.Add(-rec.opt.Window)
		}
		for i := range s.shards {
			sh := &s.shards[i]
			sh.mu.Lock()
			sh.rotate(now, rec.opt)
			if !window {
				snap.add(&sh.retired)
				for j := range sh.slots {
					snap.add(&sh.slots[j])
				}
				if sh.native != nil {
					snap.addNative(sh.native)
				}
			} else {
				for j := range sh.slots {
					if !sh.slotStart[j].IsZero() && now.Sub(sh.slotStart[j]) < rec.opt.Window {
						snap.add(&sh.slots[j])
					}
				}
			}
			sh.mu.Unlock()
		}
		out = append(out, snap)
		return true
	})
	slices.SortFunc(out, func(a, b Snapshot) int { return compareKeys(a.Key, b.Key) })
	return out
}

func (s *Snapshot) add(st *state) {
	s.addClassic(st.bounds, &st.hist, st.fails)
	s.Counts.merge(st.counts)
	s.TTFT.merge(st.ttft, st.sums[0])
	s.TPOT.merge(st.tpot, st.sums[1])
	s.E2E.merge(st.e2e, st.sums[2])
	s.Gap.merge(st.gap, st.sums[3])
	s.MaxGap.merge(st.maxGaps, st.sums[4])
}

func compareKeys(a, b Key) int {
	for _, p := range [][2]string{{a.Operation, b.Operation}, {a.Provider, b.Provider}, {a.Model, b.Model},
		{a.ResponseModel, b.ResponseModel}, {a.Endpoint, b.Endpoint}} {
		if c := strings.Compare(p[0], p[1]); c != 0 {
			return c
		}
	}
	return a.Port - b.Port
}

// Merge merges snapshots of the same window, from several label sets or
// several recorders (replicas), into one: counts add, sketches merge, and
// classic buckets merge where their bounds are the first's. The result's
// Key is the first's.
func Merge(snaps ...Snapshot) Snapshot {
	var out Snapshot
	for i, s := range snaps {
		if i == 0 {
			out.Key, out.Window, out.Since = s.Key, s.Window, s.Since
		}
		out.Counts.merge(s.Counts)
		if s.bounds != nil {
			out.addClassic(s.bounds, &s.hist, s.fails)
		}
		if s.native != nil {
			out.addNative(s.native)
		}
		for _, p := range [][2]*Dist{{&out.TTFT, &s.TTFT}, {&out.TPOT, &s.TPOT}, {&out.E2E, &s.E2E}, {&out.Gap, &s.Gap}, {&out.MaxGap, &s.MaxGap}} {
			p[0].Accuracy = max(p[0].Accuracy, p[1].Accuracy)
			if p[1].sketch != nil {
				p[0].merge(p[1].sketch, p[1].sum)
			}
		}
	}
	return out
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
