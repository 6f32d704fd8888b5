package bounded

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/internal/decimal"
	"github.com/llmmetrics/llmmetrics/internal/exact"
	"github.com/llmmetrics/llmmetrics/internal/order"
	"github.com/llmmetrics/llmmetrics/internal/outofcore"
)

// batchBytes is the size of the batches of lines read at once.
const batchBytes = 1 << 20

// hundredPercent is 100 % in units of a percentile, 10⁻⁶ %.
const hundredPercent = 100_000_000

// ReadJSONL reads the JSONL run that open opens, once a pass, and returns
// its latency distributions as llmmetrics.Summarize gives them. An
// invalid record is an error, as in Summarize without Lenient.
func ReadJSONL(open Opener, opt Options) (*Latencies, error) {
	ps := opt.Percentiles
	if ps == nil {
		ps = llmmetrics.DefaultPercentiles
	}
	units, err := unitsOf(ps)
	if err != nil {
		return nil, err
	}
	budget := opt.Budget
	if budget == 0 {
		budget = DefaultBudget
	}
	src := func(yield func(int, []time.Duration) bool) error { return samples(open, yield) }
	ranks := func(_, n int) []int { return ranksOf(opt.Method, units, n) }
	mos, vals, st, err := outofcore.SelectEach(src, nSamples, budget, ranks)
	if err != nil {
		return nil, err
	}
	l := &Latencies{Passes: st.Passes, Held: st.Held}
	for i, d := range []**llmmetrics.Distribution{&l.TTFT, &l.E2E, &l.ITL} {
		if mos[i].N > 0 {
			*d = distribution(mos[i], vals[i], opt.Method, ps, units)
		}
	}
	return l, nil
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

// samples reads the run once, yielding the samples of each batch of its
// records.
func samples(open Opener, yield func(int, []time.Duration) bool) (err error) {
	f, err := open()
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	var b batch
	return batches(f, func(recs []llmmetrics.Record, line int) error {
		for i := range b.vals {
			b.vals[i] = b.vals[i][:0]
		}
		for i := range recs {
			if err := b.add(&recs[i]); err != nil {
				return fmt.Errorf("bounded: the record at or after line %d: %w", line, err)
			}
		}
		for i, v := range b.vals {
			yield(i, v)
		}
		return nil
	})
}

// batches reads r a batch of whole lines at a time and hands each
// batch's records, and the line it starts at, to fn.
func batches(r io.Reader, fn func(recs []llmmetrics.Record, line int) error) error {
	br := bufio.NewReaderSize(r, 1<<20)
	var buf []byte
	line, lines := 1, 0
	for {
		part, err := br.ReadSlice('\n')
		buf = append(buf, part...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && err != io.EOF {
			return err
		}
		lines++
		if len(buf) >= batchBytes || err == io.EOF && len(buf) > 0 {
			run, rerr := llmmetrics.ReadJSONL(bytes.NewReader(buf))
			if rerr != nil {
				return fmt.Errorf("bounded: the batch of lines from %d: %w", line, rerr)
			}
			if ferr := fn(run.Records, line); ferr != nil {
				return ferr
			}
			buf, line, lines = buf[:0], line+lines, 0
		}
		if err == io.EOF {
			return nil
		}
	}
}
