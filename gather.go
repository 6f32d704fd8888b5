package llmmetrics

import (
	"sync"
	"time"

	"github.com/llmmetrics/llmmetrics/internal/hugepage"
)

// Counting the records and gathering their samples on every core. The
// records are cut into one run of them per core (inParts); each core
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
}

// count tallies recs[lo:hi].
func (t *tally) count(recs []Record, cat []Category, lo, hi int) {
	a := &t.a
	for i := lo; i < hi; i++ {
		r := &recs[i]
		switch cat[i] {
		case CategoryRejected:
			continue
		case CategoryWarmup:
			a.Warmup++
			continue
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
			t.wb.text(r.Sent + r.last())
			t.outTokens += int64(r.CompletionTokens)
			t.promptTokens += int64(r.PromptTokens)
			if hasTPOT(r) {
				t.nTPOT++
			} else {
				a.OneToken++
			}
			if hasGaps(r) {
				t.nGaps += len(r.Chunks) - 1
				t.nMaxGap++
			}
		}
		t.wb.offered(r)
	}
}

// add adds another run's tally to t.
func (t *tally) add(u *tally) {
	a, b := &t.a, &u.a
	a.OK += b.OK
	a.ZeroToken += b.ZeroToken
	a.Failed += b.Failed
	a.Warmup += b.Warmup
	a.Errors += b.Errors
	a.Timeouts += b.Timeouts
	a.Cancelled += b.Cancelled
	a.OneToken += b.OneToken
	t.wb.merge(&u.wb)
	t.outTokens += u.outTokens
	t.promptTokens += u.promptTokens
	t.nTPOT += u.nTPOT
	t.nGaps += u.nGaps
	t.nMaxGap += u.nMaxGap
}

// tallyAll tallies the records in runs, one per core, and returns the
// total and each run's tally.
func tallyAll(recs []Record, cat []Category) (tally, []tally) {
	parts := inParts(len(recs))
	each := make([]tally, len(parts))
	eachPart(parts, func(p, lo, hi int) { each[p].count(recs, cat, lo, hi) })
	var all tally
	for p := range each {
		all.add(&each[p])
	}
	return all, each
}

// samples are the per-request samples of the ok records, in input order,
// and the counts gathered with them. The pooled gaps stay in the records'
// chunk arrivals and are read in place.
type samples struct {
	ttfts, e2es, tpots, maxGaps []time.Duration
	gaps                        sample
	sampleCounts
}

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
// not nil. A record whose
// chunks the SLO cannot judge is an error; the first in input order is
// returned, with its index.
func gatherAll(recs []Record, cat []Category, pg *pooledGaps, all tally, each []tally, slo *SLO) (*samples, int, error) {
	s := &samples{
		ttfts:   hugepage.Make[time.Duration](all.a.OK, all.a.OK),
		e2es:    hugepage.Make[time.Duration](all.a.OK, all.a.OK),
		tpots:   hugepage.Make[time.Duration](all.nTPOT, all.nTPOT),
		maxGaps: hugepage.Make[time.Duration](all.nMaxGap, all.nMaxGap),
		// The pooled gaps are read in the records' chunk arrivals.
		gaps: sample{Seg: func(i int) []time.Duration {
			if gapsPooled(cat[i], &recs[i]) {
				return recs[i].Chunks
			}
			return nil
		}, NSegs: len(recs), Gaps: true, N: all.nGaps},
	}
	parts := inParts(len(recs))
	found := make([]sampleCounts, len(parts))
	bad := make([]int, len(parts))
	errs := make([]error, len(parts))
	eachPart(parts, func(p, lo, hi int) {
		// Where this run's samples go: after those of the runs before it.
		var ok, tp, mg int
		for q := range p {
			ok, tp, mg = ok+each[q].a.OK, tp+each[q].nTPOT, mg+each[q].nMaxGap
		}
		f := &found[p]
		for i := lo; i < hi; i++ {
			r := &recs[i]
			if cat[i] != CategoryOK {
				continue
			}
			t := timesOf(r)
			s.ttfts[ok], s.e2es[ok] = t.ttft, t.e2e
			ok++
			if t.hasTPOT {
				s.tpots[tp] = t.tpot
				tp++
				f.weighted.add(decodeTime(r), r.CompletionTokens)
			}
			switch {
			case len(r.Chunks) == 0:
				f.noChunks++
			case gapBasis(r) == BasisToken:
				f.tokenBasis++
			default:
				f.chunkBasis++
			}
			if t.hasGap {
				t.maxGap = pg.most[i]
				s.maxGaps[mg] = t.maxGap
				mg++
			}
			if slo != nil {
				v, err := slo.judgeTimes(&t, len(r.Chunks) > 0)
				if err != nil {
					bad[p], errs[p] = i, err
					return
				}
				f.slo.add(v)
			}
		}
	})
	for p := range found {
		if errs[p] != nil {
			return nil, bad[p], errs[p]
		}
		s.sampleCounts.add(&found[p])
	}
	return s, 0, nil
}

// eachPart calls fn for each run [lo, hi) of parts, each on a goroutine of
// its own but the first, and waits for them all.
func eachPart(parts [][2]int, fn func(p, lo, hi int)) {
	var wg sync.WaitGroup
	for p := 1; p < len(parts); p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(p, parts[p][0], parts[p][1])
		}()
	}
	fn(0, parts[0][0], parts[0][1])
	wg.Wait()
}
