package llmmetrics

import (
	"time"

	"github.com/llmmetrics/llmmetrics/internal/hugepage"
	"github.com/llmmetrics/llmmetrics/internal/parts"
	"github.com/llmmetrics/llmmetrics/internal/table"
)

// Counting the records and gathering their samples on every core. The
// records are cut into one run of them per core (parts.Split); each core
// counts its run, then writes its samples at the place the runs before it
// leave, so that every sample is in input order, as one pass would leave
// it. Every figure combined across the runs is an integer (counts, exact
// sums, extremes), so the result does not depend on the number of cores.

// tally is where a run of records ended, and what its ok records add up
// to, which sizes the samples.
type tally struct {
	a                       Accounting // all but Offered and Rejected
	wb                      windowBuilder
	outTokens, promptTokens int64
	nTPOT, nGaps, nMaxGap   int
	nPrompt                 int // ok records with a prompt token count
	nTPOTOut                int // of nTPOT, the unstreamed: no TPOT sample
}

// count tallies records [lo, hi) of src.
func (t *tally) count(src *source, cat []Category, lo, hi int) {
	for base, w := range src.windows(lo, hi, noIDs) {
		for k := range w {
			t.one(&w[k], cat[base+k])
		}
	}
}

// one tallies a record of category c.
func (t *tally) one(r *Record, c Category) {
	a := &t.a
	switch c {
	case CategoryRejected:
		return
	case CategoryWarmup:
		switch {
		case r.Unfinished:
			a.Unfinished++
		case r.Preflight:
			a.Preflight++
		default:
			a.Warmup++
		}
		return
	case CategoryFailed:
		a.Failed++
		switch r.Status {
		case StatusError:
			a.Errors++
		case StatusTimeout:
			a.Timeouts++
		case StatusCancelled:
			a.Cancelled++
		}
	case CategoryZeroToken:
		a.ZeroToken++
	case CategoryOK:
		a.OK++
		t.wb.AddEnd(r.Sent + r.last())
		t.promptTokens += int64(r.PromptTokens)
		if r.PromptTokens > 0 {
			t.nPrompt++
		}
		un := r.unstreamed()
		if un {
			a.Unstreamed++
		}
		switch {
		case !r.counted():
			a.Uncounted.add(r.CountState())
		case hasTPOT(r):
			t.outTokens += int64(r.CompletionTokens)
			t.nTPOT++
			if un {
				t.nTPOTOut++
			}
		default:
			t.outTokens += int64(r.CompletionTokens)
			a.OneToken++
		}
		if hasGaps(r) {
			t.nGaps += len(r.Chunks) - 1
			t.nMaxGap++
		}
	}
	t.wb.AddStart(r.Sent)
}

// add adds another run's tally to t.
func (t *tally) add(u *tally) {
	a, b := &t.a, &u.a
	a.OK, a.ZeroToken, a.Failed = a.OK+b.OK, a.ZeroToken+b.ZeroToken, a.Failed+b.Failed
	a.Warmup, a.Preflight, a.Unfinished = a.Warmup+b.Warmup, a.Preflight+b.Preflight, a.Unfinished+b.Unfinished
	a.Errors, a.Timeouts, a.Cancelled = a.Errors+b.Errors, a.Timeouts+b.Timeouts, a.Cancelled+b.Cancelled
	a.OneToken, a.Unstreamed = a.OneToken+b.OneToken, a.Unstreamed+b.Unstreamed
	c, d := &a.Uncounted, &b.Uncounted
	c.NoUsage, c.ZeroUsage, c.BelowChunks = c.NoUsage+d.NoUsage, c.ZeroUsage+d.ZeroUsage, c.BelowChunks+d.BelowChunks
	t.wb.Merge(&u.wb.Span)
	t.outTokens, t.promptTokens = t.outTokens+u.outTokens, t.promptTokens+u.promptTokens
	t.nTPOT, t.nTPOTOut, t.nPrompt = t.nTPOT+u.nTPOT, t.nTPOTOut+u.nTPOTOut, t.nPrompt+u.nPrompt
	t.nGaps, t.nMaxGap = t.nGaps+u.nGaps, t.nMaxGap+u.nMaxGap
}

// tallyAll tallies the records in runs, one per core, and returns the
// total and each run's tally. each, when not nil, holds the runs' tallies
// already (see classes.each).
func tallyAll(src *source, cat []Category, each []tally) (tally, []tally) {
	if each == nil {
		runs := parts.Split(src.len())
		each = make([]tally, len(runs))
		parts.Each(runs, func(p, lo, hi int) {
			var t tally // apart from the other cores' until the end
			t.count(src, cat, lo, hi)
			each[p] = t
		})
	}
	var all tally
	for p := range each {
		all.add(&each[p])
	}
	return all, each
}

// samples are the per-request samples of the ok records, in input order,
// and the counts gathered with them. The pooled gaps stay in the records'
// chunk arrivals and are read in place.
//
// The unstreamed answers (see Record.unstreamed) have no TTFT or TPOT
// sample: they are left out as the samples are gathered.
//
// The TTFTs and E2Es of a table's rows are its own columns, read in place
// (see table.OKColumns), when they can be: then e2es is nil, and ttfts too
// unless a copy takes less than the runs between the answers left out.
//
// The lists are mapped apart from Go's heap (see hugepage.Map) and must
// not be read once release is called.
type samples struct {
	ttfts, e2es, tpots, maxGaps []time.Duration
	ttft, e2e, gaps             sample
	sampleCounts
	lists hugepage.Lists
}

// release gives back the memory of the lists.
func (s *samples) release() { s.lists.Release() }

// sampleCounts are what is counted beside the samples, which a run of
// records adds to the others'.
type sampleCounts struct {
	weighted                         gapWeighted
	noChunks, tokenBasis, chunkBasis int
	slo                              goodputCounter
}

func (c *sampleCounts) add(o *sampleCounts) {
	c.weighted.merge(&o.weighted)
	c.noChunks += o.noChunks
	c.tokenBasis += o.tokenBasis
	c.chunkBasis += o.chunkBasis
	c.slo.merge(&o.slo)
}

// gatherAll gathers the samples of the runs that tallyAll counted (the
// largest gaps from pg), and judges each ok record against slo when it is
// not nil. A record whose chunks the SLO cannot judge is an error; the
// first in input order is returned, with its index.
func gatherAll(src *source, cat []Category, pg *pooledGaps, all tally, each []tally, slo *SLO) (*samples, int, error) {
	s := &samples{
		// The pooled gaps are read in the records' chunk arrivals.
		gaps: sample{Seg: func(i int) []time.Duration {
			if c := src.chunks(i); gapsPooled(cat[i], c) {
				return c
			}
			return nil
		}, NSegs: src.len(), Gaps: true, N: all.nGaps},
	}
	s.tpots = hugepage.MapIn[time.Duration](&s.lists, all.nTPOT-all.nTPOTOut)
	s.maxGaps = hugepage.MapIn[time.Duration](&s.lists, all.nMaxGap)
	s.inPlace(src, cat, all.a.OK, all.a.Unstreamed)
	runs := parts.Split(src.len())
	found, bad, errs := make([]sampleCounts, len(runs)), make([]int, len(runs)), make([]error, len(runs))
	parts.Each(runs, func(p, lo, hi int) {
		// This run's samples go after those of the runs before it; its
		// counts are kept apart from the other cores' until the end.
		var f sampleCounts
		defer func() { found[p] = f }()
		g := gatherer{s: s, pg: pg, slo: slo, f: &f}
		for q := range p {
			e := &each[q]
			g.ok, g.mg = g.ok+e.a.OK, g.mg+e.nMaxGap
			g.tt, g.tp = g.tt+e.a.OK-e.a.Unstreamed, g.tp+e.nTPOT-e.nTPOTOut
		}
		for base, w := range src.windows(lo, hi, noIDs) {
			for k := range w {
				if i := base + k; cat[i] == CategoryOK {
					if err := g.take(i, &w[k]); err != nil {
						bad[p], errs[p] = i, err
						return
					}
				}
			}
		}
	})
	for p := range found {
		if errs[p] != nil {
			s.release()
			return nil, bad[p], errs[p]
		}
		s.sampleCounts.add(&found[p])
	}
	return s, 0, nil
}

// inPlace sets the samples of TTFT and E2E of the ok ones of src's
// records, ok of them, unstreamed of which have no TTFT: a table's own
// columns where they can be, or else lists for gatherer.take to fill.
func (s *samples) inPlace(src *source, cat []Category, ok, unstreamed int) {
	if src.tab != nil {
		cols := []table.Column{table.LastColumn, table.FirstColumn}[:2-min(unstreamed, 1)] // TTFT's below, then
		if segs, fits := table.OKColumns(src.tab, cat, cols...); fits {
			if s.e2e = (sample{Segs: segs[0], N: ok}); unstreamed == 0 {
				s.ttft = sample{Segs: segs[1], N: ok}
				return
			}
			// The runs between the unstreamed answers, unless a copy takes less.
			if runs, n, fits := table.StreamedRuns(src.tab, cat); fits {
				s.ttft = sample{Seg: runs.Seg(table.FirstColumn), NSegs: runs.Len(), N: n}
				return
			}
			s.ttfts = hugepage.MapIn[time.Duration](&s.lists, ok-unstreamed)
			s.ttft = flat(s.ttfts)
			return
		}
	}
	s.ttfts, s.e2es = hugepage.MapIn[time.Duration](&s.lists, ok-unstreamed), hugepage.MapIn[time.Duration](&s.lists, ok)
	s.ttft, s.e2e = flat(s.ttfts), flat(s.e2es)
}

// gatherer gathers the samples of a run of records: tt, ok, tp and mg
// are where its next TTFT, E2E, TPOT and largest gap go.
type gatherer struct {
	s              *samples
	pg             *pooledGaps
	slo            *SLO
	f              *sampleCounts
	tt, ok, tp, mg int
}

// take takes the samples of record i, r, in CategoryOK.
func (g *gatherer) take(i int, r *Record) error {
	s, f := g.s, g.f
	t := timesOf(r)
	timed := !r.unstreamed() // see samples
	if s.ttfts != nil && timed {
		s.ttfts[g.tt] = t.ttft
		g.tt++
	}
	if s.e2es != nil {
		s.e2es[g.ok] = t.e2e
	}
	g.ok++
	if t.hasTPOT && timed {
		s.tpots[g.tp] = t.tpot
		g.tp++
		f.weighted.add(decodeTime(r), r.CompletionTokens)
	}
	switch {
	case len(r.Chunks) == 0:
		f.noChunks++
	case !timed: // an unstreamed answer's one chunk: no gap, no basis
	case gapBasis(r) == BasisToken:
		f.tokenBasis++
	default:
		f.chunkBasis++
	}
	if t.hasGap {
		t.maxGap = g.pg.most[i]
		s.maxGaps[g.mg] = t.maxGap
		g.mg++
	}
	if g.slo != nil {
		v, err := g.slo.judgeTimes(&t, len(r.Chunks) > 0)
		if err != nil {
			return err
		}
		f.slo.add(v)
	}
	return nil
}
