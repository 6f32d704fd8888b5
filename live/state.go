package live

import (
	"time"

	"github.com/DataDog/sketches-go/ddsketch"
)

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
