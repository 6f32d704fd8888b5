package llmmetrics

import (
	"fmt"
	"time"

	"github.com/llmmetrics/llmmetrics/internal/exact"
	"github.com/llmmetrics/llmmetrics/internal/hugepage"
	"github.com/llmmetrics/llmmetrics/internal/idkeys"
	"github.com/llmmetrics/llmmetrics/internal/parts"
)

// classify validates every record and assigns its category. It returns the
// errors of the invalid ones, in input order (the first MaxReasons of them
// listed, the rest counted); a record whose id repeats an earlier one is
// invalid (the first is kept).
func classify(recs []Record, lines []int) ([]Category, *Run) {
	c := classifyPooling(&source{recs: recs, lines: lines}, false)
	c.release()
	return c.cat, c.bad
}

// pooledGaps are the gaps between the chunks of the ok records that have
// two or more, pooled: their moments (with the sum of squares) and each
// record's largest gap, most[i] for record i. They are taken while the
// records are validated, when each record's chunks have just been read.
type pooledGaps struct {
	mo   moments
	most []time.Duration // mapped apart from Go's heap, see classes.release
}

// gapsPooled says whether a record of category c adds its gaps to the
// pool: an ok record with two chunk arrivals or more.
// It takes the record's chunk arrivals, so that a pass that has only its
// index (src.chunks) asks the same question.
func gapsPooled(c Category, chunks []time.Duration) bool {
	return c == CategoryOK && len(chunks) >= 2
}

// classes are what classifyPooling finds of a run's records.
type classes struct {
	cat []Category
	bad *Run
	pg  *pooledGaps // the pooled gaps, when asked for
	// each holds the tally of each run of records (see parts.Split), taken
	// as they were validated; nil when a repeated id changed a category
	// after that, so that the runs must be tallied again (see tallyAll).
	each []tally
	// release gives back the memory of pg's largest gaps, which is
	// mapped apart from Go's heap (see hugepage.Map): they may not be
	// read after it.
	release func()
}

// classifyPooling is classify, and with pool also pools the gaps; it
// tallies the records as it validates them.
func classifyPooling(src *source, pool bool) classes {
	n := src.len()
	cat := hugepage.Make[Category](n, n)
	var pg *pooledGaps
	releaseMost := func() {}
	if pool {
		pg = &pooledGaps{mo: moments{Squared: true}}
		if src.tab == nil { // a table's rows have no chunk arrivals: none is pooled
			pg.most, releaseMost = hugepage.Map[time.Duration](n)
		}
	}
	ids := idkeys.New(n)
	invalid, each := validateAll(src, cat, pg, ids)
	dups := ids.Repeats(src.id)
	ids.Release() // its keys, a word for each record, are not needed again
	if len(dups) > 0 {
		each = nil
	}
	bad := &Run{}
	// reject sets a record aside; its error is made only while reasons are
	// still listed (see Run.Reject).
	reject := func(e func() *RecordError) {
		if len(bad.Rejected) < MaxReasons {
			bad.Reject(e())
		} else {
			bad.Unlisted++
		}
	}
	pooledDup := false
	// The two lists are in input order; they are merged.
	for len(invalid) > 0 || len(dups) > 0 {
		if len(dups) == 0 || len(invalid) > 0 && invalid[0].at < dups[0].At {
			i, e := invalid[0].at, invalid[0].err
			reject(func() *RecordError { return src.recordError(i, e.Field, e.Err) })
			invalid = invalid[1:]
			continue
		}
		i, j := dups[0].At, dups[0].First
		reject(func() *RecordError {
			return src.recordError(i, "id", fmt.Errorf("%w: also %s", ErrDuplicateID, src.where(j)))
		})
		pooledDup = pooledDup || gapsPooled(cat[i], src.chunks(i))
		cat[i] = CategoryRejected
		dups = dups[1:]
	}
	if pg != nil && pooledDup {
		// A repeated record's gaps were pooled: pool them again without it.
		pg.mo = moments{Squared: true}
		poolAll(src, cat, pg)
	}
	return classes{cat: cat, bad: bad, pg: pg, each: each, release: releaseMost}
}

// invalidRecord is a record that failed validation, and why: err is nil
// beyond the first MaxReasons invalid records of a run of them, which are
// beyond the first MaxReasons of the whole and only counted, so that the
// reasons kept stay bounded however many records are invalid.
type invalidRecord struct {
	at  int
	err *RecordError
}

// validateAll sets the category of each record, CategoryRejected for an
// invalid one, and returns the invalid ones in input order and the tally
// of each run of records; it hashes the ids of the valid records into ids,
// and with pg it also pools the gaps of the ok records. The records are
// split among the cores, in the runs tallyAll would make (ids.Parts()), and
// each core puts the keys of its run in buckets when it is done with it.
func validateAll(src *source, cat []Category, pg *pooledGaps, ids *idkeys.Keys) ([]invalidRecord, []tally) {
	runs := ids.Parts()
	each := make([]tally, len(runs))
	found := make([][]invalidRecord, len(runs))
	gaps := partMoments(len(runs))
	parts.Each(runs, func(p, lo, hi int) {
		// The tally is kept apart from the other cores' until the end,
		// rather than written where they write theirs: neighbours in one
		// cache line, each core's writes would take the line from the
		// other's.
		var t tally
		defer func() { each[p] = t }()
		// The ids are read apart from the windows, which need not hold
		// them: writing them, each a pointer, would cost a write barrier
		// while the collector marks.
		id := src.ids()
		for base, w := range src.windows(lo, hi, noIDs) {
			for k := range w {
				i, r := base+k, &w[k]
				// The gaps of a record that may be pooled are taken before
				// it is validated, while its chunks are read for the first
				// time: when none is negative, validation need not read
				// them again. They are pooled once it is valid.
				var g recordGaps
				mayPool := pg != nil && r.Status == StatusOK && hasGaps(r)
				if mayPool {
					g = gapsOf(r.Chunks)
				}
				if e := r.validateOrdered(mayPool && g.lo >= 0); e != nil {
					if len(found[p]) >= MaxReasons {
						e = nil
					}
					found[p] = append(found[p], invalidRecord{i, e})
					cat[i] = CategoryRejected
					ids.None(i)
					continue
				}
				cat[i] = r.Category()
				t.one(r, cat[i])
				ids.Add(i, id(i))
				if mayPool && gapsPooled(cat[i], r.Chunks) {
					pg.add(&gaps[p], i, r, &g)
				}
			}
		}
		ids.Bucket(p)
	})
	var all []invalidRecord
	for _, f := range found {
		all = append(all, f...)
	}
	if pg != nil {
		pg.mergeAll(gaps)
	}
	return all, each
}

// recordGaps are what the pool takes from one record's gaps.
type recordGaps struct {
	lo, hi time.Duration
	sq     exact.Sum192 // their squares
}

// gapsOf takes the gaps between chunk arrivals, of which there are at
// least two.
func gapsOf(chunks []time.Duration) recordGaps {
	var g recordGaps
	g.lo, g.hi = exact.Gaps(chunks, &g.sq)
	return g
}

// pool adds record i's gaps to mo.
func (pg *pooledGaps) pool(mo *moments, i int, r *Record) {
	g := gapsOf(r.Chunks)
	pg.add(mo, i, r, &g)
}

// add adds record i's gaps, g, to mo.
func (pg *pooledGaps) add(mo *moments, i int, r *Record, g *recordGaps) {
	mo.Squares.AddSum(g.sq)
	mo.AddMany(len(r.Chunks)-1, g.lo, g.hi, decodeTime(r))
	pg.most[i] = g.hi
}

// poolAll pools the gaps of the ok records again, on every core.
func poolAll(src *source, cat []Category, pg *pooledGaps) {
	runs := parts.Split(src.len())
	gaps := partMoments(len(runs))
	parts.Each(runs, func(p, lo, hi int) {
		for base, w := range src.windows(lo, hi, noIDs) {
			for k := range w {
				if i, r := base+k, &w[k]; gapsPooled(cat[i], r.Chunks) {
					pg.pool(&gaps[p], i, r)
				}
			}
		}
	})
	pg.mergeAll(gaps)
}

// partMoments returns empty pooled moments (with their squares) for each
// of n runs of records, which pool apart on their cores.
func partMoments(n int) []moments {
	m := make([]moments, n)
	for p := range m {
		m[p].Squared = true
	}
	return m
}

// mergeAll adds what the runs pooled to pg, in order.
func (pg *pooledGaps) mergeAll(parts []moments) {
	for p := range parts {
		pg.mo.Merge(&parts[p])
	}
}
