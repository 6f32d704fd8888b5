package server

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
)

// A Window is what a server did between two scrapes of it: the delta of
// every counter and histogram over the window, for the series a selector
// picks. Every figure in it is a server figure.
type Window struct {
	Elapsed    time.Duration
	Selector   Selector
	Counters   map[string]Counter   // by short name: without "vllm:" and "_total"
	Histograms map[string]Histogram // by short name: without "vllm:"
	// Finished counts the requests that finished in the window, by
	// finished_reason (from request_success).
	Finished map[string]float64
}

// A Counter is the delta of one counter over a window, summed over the
// series the selector picked, and its rate.
type Counter struct {
	Name      string // the full metric name
	Delta     float64
	PerSecond float64 // Delta / Elapsed
	Series    int     // how many series were summed
}

// A Histogram is the delta of one histogram over a window: the buckets'
// counts, the count and the sum of the observations in the window, summed
// over the series the selector picked (which must share a bucket layout).
type Histogram struct {
	Name    string
	Bounds  []float64 // finite upper bounds, ascending; +Inf is implied
	Buckets []float64 // cumulative counts at each bound, then at +Inf
	Count   float64
	Sum     float64
	Series  int
}

// Diff computes the window between two scrapes of the same server, taken
// elapsed apart, for the series sel picks.
//
// It fails with ErrCounterReset when a counter decreased, or when
// process_start_time_seconds or a series' _created value changed (the
// server restarted); with ErrSeriesMismatch, listing them, when a picked
// series is present in one scrape only (never treated as zero); and with
// ErrBucketMismatch when a histogram's bucket layout changed; with
// ErrNoSeries when the selector picks no counter or histogram series at
// all (or the scrapes have none).
func Diff(before, after *Scrape, elapsed time.Duration, sel Selector) (*Window, error) {
	if elapsed <= 0 {
		return nil, fmt.Errorf("%w: %v", ErrWindow, elapsed)
	}
	if a, ok := before.gauge("process_start_time_seconds"); ok {
		if b, ok := after.gauge("process_start_time_seconds"); ok && a != b {
			return nil, fmt.Errorf("%w: process_start_time_seconds went from %v to %v", ErrCounterReset, a, b)
		}
	}
	w := &Window{Elapsed: elapsed, Selector: sel, Counters: map[string]Counter{}, Histograms: map[string]Histogram{}, Finished: map[string]float64{}}
	var missing []string
	for _, name := range union(before.Names(), after.Names()) {
		fb, fa := before.families[name], after.families[name]
		typ := familyType(fb, fa)
		created := strings.HasSuffix(name, "_created")
		if typ != dto.MetricType_COUNTER && typ != dto.MetricType_HISTOGRAM && !created {
			continue
		}
		mb, ma := picked(fb, sel), picked(fa, sel)
		missing = append(missing, oneSided(name, mb, ma)...)
		var err error
		switch {
		case created:
			err = recreated(name, mb, ma)
		case typ == dto.MetricType_COUNTER:
			err = w.addCounter(name, mb, ma)
		case typ == dto.MetricType_HISTOGRAM:
			err = w.addHistogram(name, mb, ma)
		}
		if err != nil {
			return nil, err
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return nil, fmt.Errorf("%w: %s", ErrSeriesMismatch, strings.Join(missing, "; "))
	}
	if len(w.Counters) == 0 && len(w.Histograms) == 0 {
		return nil, noSeries(before, after, sel)
	}
	return w, nil
}

// oneSided lists the series of a family, picked before (mb) or after
// (ma), that are in one scrape only.
func oneSided(name string, mb, ma map[string]*dto.Metric) []string {
	var missing []string
	for k := range mb {
		if _, ok := ma[k]; !ok {
			missing = append(missing, name+k+" (only before)")
		}
	}
	for k := range ma {
		if _, ok := mb[k]; !ok {
			missing = append(missing, name+k+" (only after)")
		}
	}
	return missing
}

// recreated fails with ErrCounterReset when a series of a _created
// family changed its value: the series was created again.
func recreated(name string, mb, ma map[string]*dto.Metric) error {
	for k, b := range mb {
		if a, ok := ma[k]; ok && value(a) != value(b) {
			return fmt.Errorf("%w: %s%s went from %v to %v: the series was recreated", ErrCounterReset, name, k, value(b), value(a))
		}
	}
	return nil
}

// addCounter adds a counter family's delta over the series in both
// scrapes, and its finished requests by reason for request_success.
func (w *Window) addCounter(name string, mb, ma map[string]*dto.Metric) error {
	c := Counter{Name: name}
	for _, k := range slices.Sorted(maps.Keys(mb)) {
		a, ok := ma[k]
		if !ok {
			continue
		}
		d := a.GetCounter().GetValue() - mb[k].GetCounter().GetValue()
		if d < 0 {
			return fmt.Errorf("%w: %s%s went from %v to %v", ErrCounterReset, name, k, mb[k].GetCounter().GetValue(), a.GetCounter().GetValue())
		}
		c.Delta += d
		c.Series++
		if shortName(name) == "request_success" {
			w.Finished[label(a, "finished_reason")] += d
		}
	}
	c.PerSecond = c.Delta / w.Elapsed.Seconds()
	if c.Series > 0 {
		w.Counters[shortName(name)] = c
	}
	return nil
}

// addHistogram adds a histogram family's delta over the series in both
// scrapes.
func (w *Window) addHistogram(name string, mb, ma map[string]*dto.Metric) error {
	h := Histogram{Name: name}
	for _, k := range slices.Sorted(maps.Keys(mb)) {
		a, ok := ma[k]
		if !ok {
			continue
		}
		if err := h.add(name+k, mb[k].GetHistogram(), a.GetHistogram()); err != nil {
			return err
		}
	}
	if h.Series > 0 {
		w.Histograms[strings.TrimPrefix(name, "vllm:")] = h
	}
	return nil
}

// noSeries explains an empty window: empty scrapes, or a selector that
// matches nothing, with the values its labels do take.
func noSeries(before, after *Scrape, sel Selector) error {
	if len(sel) == 0 {
		return fmt.Errorf("%w: the scrapes hold no counter or histogram", ErrNoSeries)
	}
	var seen []string
	for _, k := range slices.Sorted(maps.Keys(sel)) {
		values := map[string]bool{}
		for _, s := range []*Scrape{before, after} {
			for _, f := range s.families {
				for _, m := range f.GetMetric() {
					for _, l := range m.GetLabel() {
						if l.GetName() == k {
							values[fmt.Sprintf("%s=%q", k, l.GetValue())] = true
						}
					}
				}
			}
		}
		if len(values) == 0 {
			seen = append(seen, "no series has a label "+k)
		} else {
			seen = append(seen, "the scrapes have "+strings.Join(slices.Sorted(maps.Keys(values)), ", "))
		}
	}
	return fmt.Errorf("%w: the selector %s matches no counter or histogram series; %s", ErrNoSeries, sel, strings.Join(seen, "; "))
}

// add adds one series' delta to the histogram.
func (h *Histogram) add(series string, before, after *dto.Histogram) error {
	bounds := func(x *dto.Histogram) []float64 {
		var b []float64
		for _, bk := range x.GetBucket() {
			if !math.IsInf(bk.GetUpperBound(), 1) {
				b = append(b, bk.GetUpperBound())
			}
		}
		return b
	}
	bb, ba := bounds(before), bounds(after)
	if !slices.Equal(bb, ba) || (h.Series > 0 && !slices.Equal(h.Bounds, ba)) {
		return fmt.Errorf("%w: %s has bounds %v before and %v after", ErrBucketMismatch, series, bb, ba)
	}
	cum := func(x *dto.Histogram) []float64 {
		var c []float64
		for _, bk := range x.GetBucket() {
			if !math.IsInf(bk.GetUpperBound(), 1) {
				c = append(c, float64(bk.GetCumulativeCount())+bk.GetCumulativeCountFloat())
			}
		}
		return append(c, float64(x.GetSampleCount())+x.GetSampleCountFloat())
	}
	cb, ca := cum(before), cum(after)
	if h.Series == 0 {
		h.Bounds, h.Buckets = ba, make([]float64, len(ca))
	}
	for i := range ca {
		d := ca[i] - cb[i]
		if d < 0 {
			return fmt.Errorf("%w: %s bucket %d went from %v to %v", ErrCounterReset, series, i, cb[i], ca[i])
		}
		h.Buckets[i] += d
	}
	h.Count += ca[len(ca)-1] - cb[len(cb)-1]
	h.Sum += after.GetSampleSum() - before.GetSampleSum()
	h.Series++
	return nil
}

// Mean returns Δsum/Δcount, or ErrNoSamples when nothing was observed.
func (h Histogram) Mean() (float64, error) {
	if h.Count <= 0 {
		return 0, fmt.Errorf("%w: %s", ErrNoSamples, h.Name)
	}
	return h.Sum / h.Count, nil
}

// Quantile returns the q-quantile (0 ≤ q ≤ 1) of the window's observations
// with the semantics of PromQL's histogram_quantile over classic buckets,
// step for step, so that its results are bit for bit PromQL's:
//
//   - buckets with equal upper bounds are merged (their counts summed);
//   - in one pass, each cumulative count is compared with the last count
//     accepted: within float noise of it (a difference below 1e-12 of
//     their sum) it is set equal to it, below it it is raised to it (the
//     envelope: see Monotonic and promEnvelope);
//   - the rank q·N, with N the +Inf bucket's count, is found in the
//     cumulative counts, and the value interpolated linearly inside its
//     bucket as lo + (hi − lo)·((rank − below)/in), the lowest bucket
//     starting at 0 when its bound is positive; a lowest bucket whose bound
//     is 0 or less returns that bound;
//   - a rank that falls in the +Inf bucket returns the highest finite
//     bound, with lowerBound true: the true quantile is at least that.
//
// Where PromQL returns NaN or an infinity, Quantile returns an error
// instead: ErrQuantileRange for q outside [0, 1] or NaN (PromQL: −Inf, +Inf,
// NaN), ErrNoFiniteBuckets when there is no finite bucket, ErrNoSamples when
// the +Inf bucket counts nothing, and ErrQuantileUndefined for q = 0 when
// the lowest bucket is empty and its bound positive (PromQL: NaN, from 0/0).
func (h Histogram) Quantile(q float64) (v float64, lowerBound bool, err error) {
	if math.IsNaN(q) || q < 0 || q > 1 {
		return 0, false, fmt.Errorf("%w: %v", ErrQuantileRange, q)
	}
	bs := h.promBuckets()
	if len(bs) < 2 {
		return 0, false, fmt.Errorf("%w: %s", ErrNoFiniteBuckets, h.Name)
	}
	observations := bs[len(bs)-1].count
	if observations <= 0 {
		return 0, false, fmt.Errorf("%w: %s", ErrNoSamples, h.Name)
	}
	rank := q * observations
	b := sort.Search(len(bs)-1, func(i int) bool { return bs[i].count >= rank })
	switch {
	case b == len(bs)-1:
		return bs[len(bs)-2].bound, true, nil
	case b == 0 && bs[0].bound <= 0:
		return bs[0].bound, false, nil
	}
	lo, hi, in := 0.0, bs[b].bound, bs[b].count
	if b > 0 {
		lo = bs[b-1].bound
		in -= bs[b-1].count
		rank -= bs[b-1].count
	}
	if in == 0 { // only for q = 0 with an empty lowest bucket
		return 0, false, fmt.Errorf("%w: %s: q = 0 and the lowest bucket (le=%v) is empty", ErrQuantileUndefined, h.Name, hi)
	}
	return lo + (hi-lo)*(rank/in), false, nil
}

// Monotonic reports whether the cumulative bucket counts never decrease,
// once float noise is forgiven: it is false exactly when PromQL's
// histogram_quantile would flag its input as "needed to be fixed for
// monotonicity" (its forcedMonotonic). When they do decrease (a scrape
// that raced its own updates, a federation or recording-rule artefact),
// Quantile follows PromQL and raises each to the largest count accepted
// before it; a report says so, as PromQL annotates it. Float noise
// forgiven alone (see promEnvelope) is not flagged, as in PromQL.
func (h Histogram) Monotonic() bool {
	forced, _ := promEnvelope(h.mergedBuckets())
	return !forced
}

// bucket is one cumulative bucket: the count of observations ≤ bound.
type bucket struct{ bound, count float64 }

// mergedBuckets returns the histogram's buckets, +Inf last, sorted by bound
// with equal bounds merged. It does not modify h.
func (h Histogram) mergedBuckets() []bucket {
	bs := make([]bucket, 0, len(h.Buckets))
	for i, c := range h.Buckets {
		bound := math.Inf(1)
		if i < len(h.Bounds) {
			bound = h.Bounds[i]
		}
		bs = append(bs, bucket{bound, c})
	}
	slices.SortStableFunc(bs, func(a, b bucket) int { return cmp.Compare(a.bound, b.bound) })
	out := bs[:0]
	for _, b := range bs {
		if n := len(out); n > 0 && out[n-1].bound == b.bound {
			out[n-1].count += b.count
			continue
		}
		out = append(out, b)
	}
	return out
}

// promBuckets returns the buckets as PromQL's histogram_quantile reads
// them: merged, with float noise corrected and the counts made monotonic.
func (h Histogram) promBuckets() []bucket {
	bs := h.mergedBuckets()
	promEnvelope(bs)
	return bs
}

// noiseTolerance is the relative difference between consecutive
// cumulative counts that PromQL's histogram_quantile takes for float noise
// (its smallDeltaTolerance).
const noiseTolerance = 1e-12

// promEnvelope corrects the counts in one pass, as PromQL's
// ensureMonotonicAndIgnoreSmallDeltas does. Each count is compared with
// the last count accepted (prev), not with the one just before it: a
// count within float noise of prev (see almostEqual), in either
// direction, is set to prev (fixedPrecision); a count below prev is
// raised to prev (forcedMonotonic); in neither case does prev change. A
// count above prev becomes the new prev.
func promEnvelope(bs []bucket) (forcedMonotonic, fixedPrecision bool) {
	if len(bs) == 0 {
		return false, false
	}
	prev := bs[0].count
	for i := 1; i < len(bs); i++ {
		cur := bs[i].count
		switch {
		case cur == prev:
		case almostEqual(prev, cur, noiseTolerance):
			bs[i].count = prev
			fixedPrecision = true
		case cur < prev:
			bs[i].count = prev
			forcedMonotonic = true
		default:
			prev = cur
		}
	}
	return forcedMonotonic, fixedPrecision
}

// minNormal is the smallest positive normal float64, 2⁻¹⁰²².
var minNormal = math.Float64frombits(0x0010000000000000)

// almostEqual reports whether a and b differ by less than epsilon times
// their summed magnitudes (Prometheus' almost.Equal on finite counts):
// |a − b| / (|a| + |b|) < epsilon, or, when either is 0 or both are
// subnormal, |a − b| < epsilon · minNormal.
func almostEqual(a, b, epsilon float64) bool {
	if a == b {
		return true
	}
	sum, diff := math.Abs(a)+math.Abs(b), math.Abs(a-b)
	if a == 0 || b == 0 || sum < minNormal {
		return diff < epsilon*minNormal
	}
	return diff/math.Min(sum, math.MaxFloat64) < epsilon
}

func familyType(fams ...*dto.MetricFamily) dto.MetricType {
	for _, f := range fams {
		if f != nil {
			return f.GetType()
		}
	}
	return dto.MetricType_UNTYPED
}

func picked(f *dto.MetricFamily, sel Selector) map[string]*dto.Metric {
	out := map[string]*dto.Metric{}
	if f == nil {
		return out
	}
	for _, m := range f.GetMetric() {
		if sel.matches(m) {
			out[seriesKey(m)] = m
		}
	}
	return out
}

func value(m *dto.Metric) float64 {
	switch {
	case m.GetGauge() != nil:
		return m.GetGauge().GetValue()
	case m.GetCounter() != nil:
		return m.GetCounter().GetValue()
	case m.GetUntyped() != nil:
		return m.GetUntyped().GetValue()
	}
	return math.NaN()
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// shortName drops the "vllm:" prefix and the "_total" suffix.
func shortName(name string) string {
	return strings.TrimSuffix(strings.TrimPrefix(name, "vllm:"), "_total")
}

func union(a, b []string) []string {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}
