package live

import (
	"fmt"
	"time"

	"github.com/DataDog/sketches-go/ddsketch"
	"github.com/llmmetrics/llmmetrics"
)

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
