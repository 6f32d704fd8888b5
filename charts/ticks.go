package charts

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// linearTicks labels a linear axis at a step of 1, 2 or 5 times a power of
// ten: the largest such step that puts at least three labels in the range
// (so at most seven), with as many decimal places as the step needs.
type linearTicks struct{}

func (linearTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return nil
	}
	top := math.Floor(math.Log10(hi - lo))
	for e := top; e >= top-3; e-- {
		for _, m := range []float64{5, 2, 1} {
			step := m * math.Pow(10, e)
			first, last := math.Ceil(lo/step-1e-9), math.Floor(hi/step+1e-9)
			if last-first+1 < 3 {
				continue
			}
			dec := max(0, int(-e))
			var out []plot.Tick
			for i := first; i <= last; i++ {
				v := i * step
				if v == 0 {
					v = 0 // no "-0"
				}
				out = append(out, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', dec, 64)})
			}
			return out
		}
	}
	return nil
}

// logTicks labels a log axis at 1, 2 and 5 times the powers of ten, with
// unlabelled ticks at the other whole multiples. When that labels fewer
// than three ticks (a range within a decade or two), it labels every
// multiple; when that is still too few (a narrow range such as 2.2–2.4),
// it labels the axis as a linear one would, with the decimals the range
// needs. Over many decades it labels only the powers of ten, every other
// one when there are more than eight.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi > lo) || math.IsInf(hi, 0) {
		return nil
	}
	labelled := func(ts []plot.Tick) int {
		n := 0
		for _, t := range ts {
			if t.Label != "" {
				n++
			}
		}
		return n
	}
	ts := logSet(lo, hi, map[float64]bool{1: true, 2: true, 5: true}, 1)
	n := labelled(ts)
	switch {
	case n > 9:
		every := 1
		for decades := math.Log10(hi / lo); decades/float64(every) > 8; every++ {
		}
		return logSet(lo, hi, map[float64]bool{1: true}, every)
	case n >= 3:
		return ts
	}
	if ts = logSet(lo, hi, map[float64]bool{1: true, 2: true, 3: true, 4: true, 5: true, 6: true, 7: true, 8: true, 9: true}, 1); labelled(ts) >= 3 {
		return ts
	}
	return linearTicks{}.Ticks(lo, hi)
}

// logSet returns a tick at each whole multiple of the powers of ten in
// [lo, hi], labelled when the multiple is in label (and, for powers of
// ten, when the exponent is a multiple of every).
func logSet(lo, hi float64, label map[float64]bool, every int) []plot.Tick {
	var out []plot.Tick
	for e := math.Floor(math.Log10(lo)); math.Pow(10, e) <= hi; e++ {
		base := math.Pow(10, e)
		for m := 1.0; m < 10; m++ {
			v := m * base
			if v < lo*(1-1e-12) || v > hi*(1+1e-12) {
				continue
			}
			t := plot.Tick{Value: v}
			if label[m] && (m != 1 || every == 1 || int(e)%every == 0) {
				t.Label = strconv.FormatFloat(v, 'f', max(0, int(-e)), 64)
			}
			out = append(out, t)
		}
	}
	return out
}
