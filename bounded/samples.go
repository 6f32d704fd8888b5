package bounded

import (
	"fmt"
	"slices"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/internal/decimal"
	"github.com/llmmetrics/llmmetrics/internal/exact"
	"github.com/llmmetrics/llmmetrics/internal/order"
)

// The samples, in the order the selection numbers them.
const (
	sampleTTFT = iota
	sampleE2E
	sampleTPOT
	sampleITL
	sampleMaxGap
	nSamples
)

// hundredPercent is 100 % in units of a percentile, 10⁻⁶ %.
const hundredPercent = 100_000_000

// unstreamed says whether an ok record's text came at once: a reply its
// client saw come as one body, or one text-bearing chunk (with no chunk
// arrivals, first and last text together) of two or more counted tokens
// or of a count unknown that max_tokens does not hold to one (as the
// root's Record.unstreamed decides): it has no TTFT or TPOT sample.
func unstreamed(r *llmmetrics.Record) bool {
	switch {
	case r.Client != nil && r.Client.OneBody:
		return true
	case counted(r) && r.CompletionTokens < 2, !counted(r) && r.MaxTokens == 1:
		return false // one token at most: a stream of one chunk
	case len(r.Chunks) > 0:
		return len(r.Chunks) == 1
	}
	return r.FirstText == r.LastText
}

// counted says whether a record's token count can be used.
func counted(r *llmmetrics.Record) bool { return r.CountState() == llmmetrics.CountKnown }

// hasTPOT says whether an ok record has a TPOT: two or more counted
// tokens.
func hasTPOT(r *llmmetrics.Record) bool { return r.CompletionTokens >= 2 && counted(r) }

// values returns the samples of a valid ok record, each with whether the
// record has it; the pooled gaps are apart (see appendGaps).
func values(r *llmmetrics.Record) (v [nSamples]time.Duration, has [nSamples]bool) {
	v[sampleE2E], _ = r.E2E()
	has[sampleE2E] = true
	if !unstreamed(r) {
		v[sampleTTFT], _ = r.TTFT()
		has[sampleTTFT] = true
		if hasTPOT(r) {
			v[sampleTPOT], _ = r.TPOT()
			has[sampleTPOT] = true
		}
	}
	if len(r.Chunks) >= 2 {
		v[sampleMaxGap], _ = r.MaxGap()
		has[sampleMaxGap] = true
	}
	return v, has
}

// segments holds the samples of a batch of records.
type segments struct{ vals [nSamples][]time.Duration }

// add adds the samples of a valid record.
func (s *segments) add(r *llmmetrics.Record) {
	if r.Category() != llmmetrics.CategoryOK {
		return
	}
	v, has := values(r)
	for i := range v {
		if has[i] && i != sampleITL {
			s.vals[i] = append(s.vals[i], v[i])
		}
	}
	if len(r.Chunks) >= 2 {
		s.vals[sampleITL], _ = r.AppendGaps(s.vals[sampleITL])
	}
}

// reset empties the segments for another batch.
func (s *segments) reset() {
	for i := range s.vals {
		s.vals[i] = s.vals[i][:0]
	}
}

// unitsOf returns each percentile in units of 10⁻⁶ %, as the root holds
// it.
func unitsOf(ps []llmmetrics.Percentile) ([]uint64, error) {
	units := make([]uint64, len(ps))
	for i, p := range ps {
		u, ok := decimal.Fixed(p.String(), 3, 6)
		if !ok {
			return nil, fmt.Errorf("bounded: percentile %s", p)
		}
		units[i] = uint64(u)
	}
	return units, nil
}

// position returns where the percentile of u units falls in n sorted
// values by method m, as the root's Method.position does.
func position(m llmmetrics.Method, u uint64, n int) (int, uint64) {
	if m == llmmetrics.NearestRank {
		return order.NearestRank(u, hundredPercent, n), 0
	}
	return order.Linear(u, hundredPercent, n)
}

// ranksOf returns the sorted, distinct ranks the percentiles need in n
// values.
func ranksOf(m llmmetrics.Method, units []uint64, n int) []int {
	var ks []int
	for _, u := range units {
		k, r := position(m, u, n)
		ks = append(ks, k)
		if r != 0 {
			ks = append(ks, k+1)
		}
	}
	slices.Sort(ks)
	return slices.Compact(ks)
}

// distribution builds a sample's distribution from its moments and the
// values of its ranks (ranksOf), as the root's describeSample does.
func distribution(mo exact.Moments, vals []time.Duration, m llmmetrics.Method, ps []llmmetrics.Percentile, units []uint64) *llmmetrics.Distribution {
	d := &llmmetrics.Distribution{N: mo.N, Method: m, Min: mo.Min, Max: mo.Max}
	d.Mean = mo.Sum.DivRound(int64(mo.N))
	d.Std = exact.Deviation(mo.Squares, mo.Sum, mo.N, d.Mean)
	ks := ranksOf(m, units, mo.N)
	value := func(k int) time.Duration { i, _ := slices.BinarySearch(ks, k); return vals[i] }
	for i, u := range units {
		k, r := position(m, u, mo.N)
		v := value(k)
		if r != 0 {
			v = order.Interpolate(v, value(k+1), r, hundredPercent)
		}
		d.Points = append(d.Points, llmmetrics.Point{P: ps[i], Value: v})
	}
	return d
}
