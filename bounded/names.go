package bounded

import (
	"errors"
	"time"

	"github.com/llmmetrics/llmmetrics"
)

// errNamed stops the naming pass once every point has its request.
var errNamed = errors.New("bounded: every point named")

// name reads the file once to set each nearest-rank point's ID to the id
// of the first request, in input order, whose sample equals the point's
// value, as the root's nameRequests does: for TTFT, E2E, TPOT and the
// largest gaps (a pooled gap is not a request's).
func name(each passFunc, ds *[nSamples]*llmmetrics.Distribution) error {
	var named [nSamples][]bool
	left := 0
	for i, d := range ds {
		if d != nil && i != sampleITL {
			named[i] = make([]bool, len(d.Points))
			left += len(d.Points)
		}
	}
	if left == 0 {
		return nil
	}
	err := each(func(b *batch) error {
		for k := range b.run.Records {
			if left -= nameBy(&b.run.Records[k], ds, &named); left == 0 {
				return errNamed
			}
		}
		return nil
	})
	if errors.Is(err, errNamed) {
		return nil
	}
	return err
}

// nameBy names with r's id the points not yet named whose value is r's
// sample, and returns how many it named.
func nameBy(r *llmmetrics.Record, ds *[nSamples]*llmmetrics.Distribution, named *[nSamples][]bool) int {
	if r.Category() != llmmetrics.CategoryOK {
		return 0
	}
	n := 0
	v, has := values(r)
	for i := range v {
		if has[i] && named[i] != nil {
			n += nameAt(ds[i], named[i], v[i], r.ID)
		}
	}
	return n
}

// nameAt names the points of d not yet named whose value is v with id,
// and returns how many it named.
func nameAt(d *llmmetrics.Distribution, named []bool, v time.Duration, id string) int {
	n := 0
	for j := range d.Points {
		if !named[j] && d.Points[j].Value == v {
			d.Points[j].ID, named[j] = id, true
			n++
		}
	}
	return n
}
