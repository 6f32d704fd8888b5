package live

import (
	"slices"
	"strings"
	"time"
)

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
